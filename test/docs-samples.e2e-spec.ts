import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startTestApp, type TestApp } from './support/app.js';
import { bookingOrg, NOW } from './support/bookings.js';
import { blocks, isCurl, pages, pick, type DocBlock } from './support/doc-samples.js';
import { createApiKey } from './support/factories.js';
import { WebhookReceiver } from './support/webhooks.js';

const run = promisify(execFile);

/** What each page must hold at least: a page whose samples vanished would otherwise pass with nothing run. */
const CURL_PAGES = ['authentication.md', 'errors.md', 'getting-started.md', 'oauth.md', 'test-mode.md', 'webhooks.md', 'booker.md'];
/** Where the answers' statuses are written, after each curl (a curlrc of the test's own: the samples run verbatim). */
const STATUS = '\n@@status=%{http_code}\n';
const OAUTH_REDIRECT = 'https://crm.example/oauth/callback';
const ORIGIN = 'https://www.example.com';

/**
 * Every curl sample of docs/integrating/ runs, page by page in the order written, against the real app: as bash with
 * the variables a reader exports (`$API`, `$KEY`, `$EVENT_TYPE_ID` …) set to what this file made, and each answer's
 * status checked against the sample's `<!-- sample: … -->` comment (2xx without one). The SDK samples (```ts sdk)
 * run in test/docs-sdk-samples.
 */
describe('the samples of docs/integrating/', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  const curlHome = mkdtempSync(join(tmpdir(), 'sched-doc-samples-'));

  beforeAll(async () => {
    writeFileSync(join(curlHome, '.curlrc'), `silent\nshow-error\nwrite-out = "${STATUS.replace(/\n/g, '\\n')}"\n`);
    t = await startTestApp();
    receiver = await WebhookReceiver.start();
  });
  afterAll(async () => {
    await receiver.stop();
    await t.close();
    rmSync(curlHome, { recursive: true, force: true });
  });

  /** A fresh organization for each page: what its samples may use without making it first. */
  async function environment(): Promise<Record<string, string>> {
    t.clock.set(NOW);
    const org = await bookingOrg(t);
    const publishable = await createApiKey(t.http, org.owner.accessToken, { kind: 'publishable', allowedOrigins: [ORIGIN] });
    return {
      API: t.url,
      ISSUER: t.url,
      FROM: '2027-03-01',
      TO: '2027-03-05',
      TOKEN: org.owner.accessToken,
      KEY: org.apiKey,
      TEST_KEY: org.testKey,
      PUBLISHABLE_KEY: publishable.apiKey,
      ORIGIN,
      EVENT_TYPE_ID: org.eventTypeId,
      EMAIL: org.owner.email,
      WEBHOOK_URL: receiver.url('/docs'),
    };
  }

  /** The browser's part of docs/integrating/oauth.md § 3: the authorization request, and the owner allowing it. */
  async function consent(env: Record<string, string>): Promise<void> {
    const verifier = randomBytes(48).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: env.CLIENT_ID,
      redirect_uri: OAUTH_REDIRECT,
      scope: 'bookings:read team:read',
      state: 'docs-state',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    const authorize = await fetch(`${t.url}/oauth/authorize?${query.toString()}`, { redirect: 'manual' });
    expect(authorize.status).toBe(302);
    const requestId = new URLSearchParams(authorize.headers.get('location')!.split('?')[1]).get('request')!;
    const approved = await t.http.post(`/v1/oauth/requests/${requestId}/approve`, undefined, { token: env.TOKEN });
    expect(approved.status).toBe(200);
    const callback = new URL(approved.body.redirectTo as string);
    expect(callback.searchParams.get('state')).toBe('docs-state');
    Object.assign(env, { VERIFIER: verifier, CODE: callback.searchParams.get('code')!, STATE: 'docs-state' });
  }

  async function runSample(block: DocBlock, env: Record<string, string>): Promise<void> {
    const where = `${block.page}:${block.line}`;
    if (block.before === 'consent') await consent(env);
    else if (block.before !== undefined) throw new Error(`${where}: unknown before=${block.before}`);
    const { stdout, stderr } = await run('bash', ['-c', `set -euo pipefail\n${block.text}`], {
      env: { PATH: process.env.PATH!, HOME: curlHome, CURL_HOME: curlHome, ...env },
      encoding: 'utf8',
      timeout: 20_000,
    }).catch((error: { stdout?: string; stderr?: string; message: string }) => {
      throw new Error(`${where}: ${error.message}\n${error.stdout ?? ''}\n${error.stderr ?? ''}`);
    });
    const parts = stdout.split(/\n@@status=(\d{3})\n/);
    const statuses = parts.filter((_, i) => i % 2 === 1).map(Number);
    const bodies = parts.filter((_, i) => i % 2 === 0);
    const expected = block.statuses ?? statuses.map((status) => (status >= 200 && status < 300 ? status : 200));
    expect({ where, statuses, stderr }).toEqual({ where, statuses: expected, stderr: '' });
    const last = bodies[statuses.length - 1]?.trim();
    for (const [name, path] of block.saves) {
      env[name] = pick(JSON.parse(last ?? 'null'), path);
    }
  }

  it('has the pages the docs name, each with curl samples, all in ```sh blocks', () => {
    const all = pages().flatMap(blocks);
    expect(CURL_PAGES.filter((page) => blocks(page).filter(isCurl).length === 0)).toEqual([]);
    const misplaced = all.filter((block) => isCurl(block) && block.info !== 'sh').map((block) => `${block.page}:${block.line}`);
    expect(misplaced).toEqual([]);
    const directivesOnOthers = all
      .filter((block) => !isCurl(block) && (block.statuses || block.saves.length))
      .map((b) => `${b.page}:${b.line}`);
    expect(directivesOnOthers).toEqual([]);
  });

  it.each(CURL_PAGES)(
    'runs every curl sample of %s, in order, with the statuses it states',
    async (page) => {
      const env = await environment();
      const samples = blocks(page).filter(isCurl);
      for (const block of samples) await runSample(block, env);
      if (page === 'webhooks.md') {
        // The test send of the page arrived, signed with the secret its create sample printed.
        await receiver.waitFor(() => receiver.received.some((r) => r.path === '/docs' && r.payload?.type === 'webhook.test'));
      }
    },
    120_000,
  );
});
