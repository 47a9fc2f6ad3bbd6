import { Writable } from 'node:stream';
import { createRootLogger } from '../apps/api/src/logging/logger.js';
import { startTestApp, type TestApp } from './support/app.js';
import { registerOwner } from './support/factories.js';

/** Keys, tokens and passwords never reach the logs (api-rules.md § Running). */
describe('logs', () => {
  const lines: string[] = [];
  let t: TestApp;
  beforeAll(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(...chunk.toString().split('\n').filter(Boolean));
        done();
      },
    });
    t = await startTestApp({ logger: createRootLogger('info', sink) });
  });
  afterAll(async () => {
    await t.close();
  });

  it('are JSON lines with the request id, and carry no credential, token, password or query string', async () => {
    const owner = await registerOwner(t.http, { password: 'pa55word-never-logged' });
    const key = await t.http.post('/v1/api-keys', { name: 'k' }, { token: owner.accessToken });
    await t.http.get('/v1/users/me', { apiKey: key.body.apiKey, headers: { 'x-request-id': 'trace-log-1' } });
    await t.http.get('/invitations/accept?token=invitation-secret-token');
    await t.http.post('/v1/auth/login', { email: owner.email, password: 'wrong-password-never-logged' });
    await new Promise((r) => setTimeout(r, 50));

    const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(parsed.length).toBeGreaterThan(5);
    expect(parsed.some((entry) => entry.requestId === 'trace-log-1')).toBe(true);
    expect(parsed.some((entry) => JSON.stringify(entry).includes('/invitations/accept'))).toBe(true);
    const all = lines.join('\n');
    for (const secret of [
      owner.accessToken,
      owner.refreshToken,
      key.body.apiKey,
      'pa55word-never-logged',
      'wrong-password-never-logged',
      'invitation-secret-token',
    ]) {
      expect(all).not.toContain(secret);
    }
  });
});
