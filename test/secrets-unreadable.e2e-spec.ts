import { Writable } from 'node:stream';
import { DataSource } from 'typeorm';
import { loadConfig, SecretSealer } from '@app/common';
import { createRootLogger } from '../apps/api/src/logging/logger.js';
import { startTestApp, TEST_JWT_SECRET, type TestApp } from './support/app.js';
import { registerOwner } from './support/factories.js';
import { createWebhook, deliveries, eventually, WebhookReceiver } from './support/webhooks.js';

/** A secret sealed by a key that no instance still holds (issue 29): nothing is failed as if the receiver had refused it. */
describe('a webhook secret no configured key opens', () => {
  const lines: string[] = [];
  let t: TestApp;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(...chunk.toString().split('\n').filter(Boolean));
        done();
      },
    });
    receiver = await WebhookReceiver.start();
    t = await startTestApp({ logger: createRootLogger('info', sink), env: { LOG_LEVEL: 'info' } });
  });
  afterAll(async () => {
    await t.close();
    await receiver.stop();
  });

  it('keeps the delivery pending with the error in its log, counts no attempt, and warns once for it', async () => {
    const owner = await registerOwner(t.http);
    const auth = { token: owner.accessToken };
    const hook = await createWebhook(t.http, auth, { url: receiver.url('/lost-key'), events: ['*'] });
    // As a key that has since been dropped sealed it.
    const dropped = new SecretSealer(
      loadConfig({ NODE_ENV: 'test', JWT_SECRET: TEST_JWT_SECRET, ENCRYPTION_KEY: Buffer.alloc(32, 0x5e).toString('base64') }),
    );
    const database = t.app.get(DataSource);
    await database.query(`UPDATE webhooks SET secret_ciphertext = $2 WHERE id = $1`, [hook.id, dropped.seal(hook.secret, hook.id)]);

    expect((await t.http.post(`/v1/webhooks/${hook.id}/test`, undefined, auth)).status).toBe(202);
    const held = await eventually(
      async () => (await deliveries(t.http, auth, hook.id)).find((d) => d.lastError?.includes('cannot be opened')),
      10_000,
      'the delivery held back',
    );
    expect(held.status).toBe('pending');
    const { attempts, max_attempts: maxAttempts } = (
      await database.query(`SELECT attempts, max_attempts FROM webhook_deliveries WHERE id = $1`, [held.id])
    )[0] as { attempts: number; max_attempts: number };

    // Due again (as after the wait): held again, never failed, and the warning is not repeated.
    await database.query(`UPDATE webhook_deliveries SET next_attempt_at = now() WHERE id = $1`, [held.id]);
    await eventually(
      async () => {
        const [row] = (await database.query(`SELECT attempts FROM webhook_deliveries WHERE id = $1`, [held.id])) as { attempts: number }[];
        return row.attempts > attempts ? true : undefined;
      },
      10_000,
      'a second claim',
    );
    await eventually(
      async () => {
        const [row] = (await database.query(`SELECT max_attempts, locked_until FROM webhook_deliveries WHERE id = $1`, [held.id])) as {
          max_attempts: number;
          locked_until: Date | null;
        }[];
        return row.locked_until === null && row.max_attempts === maxAttempts + 1 ? true : undefined;
      },
      10_000,
      'the second hold recorded',
    );
    const again = (await deliveries(t.http, auth, hook.id)).find((d) => d.id === held.id);
    expect(again.status).toBe('pending');
    expect(receiver.at('/lost-key')).toHaveLength(0);
    const warnings = lines.filter((line) => line.includes('cannot be opened') && line.includes(held.id));
    expect(warnings).toHaveLength(1);
    expect(JSON.parse(warnings[0]).level).toBe('warn');
  });
});
