import { DataSource } from 'typeorm';
import { SecretBox } from '../apps/api/src/modules/webhooks/secret-box.js';
import { WebhookSecretReseal } from '../apps/api/src/modules/webhooks/webhook-secret-reseal.service.js';
import { startTestApp, TEST_ENCRYPTION_KEY, TEST_JWT_SECRET, type TestApp } from './support/app.js';
import { registerOwner } from './support/factories.js';
import { waitFor } from './support/process.js';
import { createWebhook, WebhookReceiver } from './support/webhooks.js';

/** Webhook secrets at rest under ENCRYPTION_KEY (api-rules.md § Calendars), older ones re-sealed by a job. */
describe('webhook secrets at rest', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    t = await startTestApp();
    receiver = await WebhookReceiver.start();
  });

  afterAll(async () => {
    await t.close();
    await receiver.stop();
  });

  const stored = async (id: string): Promise<string> =>
    (await t.app.get(DataSource).query(`SELECT secret_ciphertext FROM webhooks WHERE id = $1`, [id]))[0].secret_ciphertext;

  async function delivered(app: TestApp, token: string, id: string, path: string): Promise<void> {
    const before = receiver.at(path).length;
    expect((await app.http.post(`/v1/webhooks/${id}/test`, undefined, { token })).status).toBe(202);
    await waitFor(async () => (receiver.at(path).length > before ? true : undefined), 10_000, 'the test delivery');
    expect(receiver.at(path).every((r) => r.verified)).toBe(true);
  }

  it('seals new secrets with ENCRYPTION_KEY, re-seals ones from the JWT-derived key, and signing still verifies', async () => {
    const owner = await registerOwner(t.http);
    const hook = await createWebhook(t.http, { token: owner.accessToken }, { url: receiver.url('/legacy'), events: ['*'] });
    receiver.expectSecret('/legacy', hook.secret);
    expect(await stored(hook.id)).toMatch(/^k1\./);
    expect(await stored(hook.id)).not.toContain(hook.secret);

    // As an older version stored it.
    const legacy = new SecretBox(TEST_JWT_SECRET).seal(hook.secret, hook.id);
    await t.app.get(DataSource).query(`UPDATE webhooks SET secret_ciphertext = $2 WHERE id = $1`, [hook.id, legacy]);
    await delivered(t, owner.accessToken, hook.id, '/legacy');
    expect(await t.app.get(WebhookSecretReseal).resealAll()).toBe(1);
    expect(await stored(hook.id)).toMatch(/^k1\./);
    expect(await t.app.get(WebhookSecretReseal).resealAll()).toBe(0);
    await delivered(t, owner.accessToken, hook.id, '/legacy');
  });

  it('rotates ENCRYPTION_KEY: the previous key still opens, the job re-seals under the new one', async () => {
    const owner = await registerOwner(t.http);
    const hook = await createWebhook(t.http, { token: owner.accessToken }, { url: receiver.url('/rotated'), events: ['*'] });
    receiver.expectSecret('/rotated', hook.secret);
    const before = await stored(hook.id);
    const rotated = await startTestApp({
      databaseUrl: t.databaseUrl,
      env: { ENCRYPTION_KEY: Buffer.alloc(32, 9).toString('base64'), ENCRYPTION_KEY_PREVIOUS: TEST_ENCRYPTION_KEY, RUN_WORKERS: 'false' },
    });
    try {
      expect(await rotated.app.get(WebhookSecretReseal).resealAll()).toBeGreaterThanOrEqual(1);
      expect(await stored(hook.id)).not.toBe(before);
      // The old instances' key no longer opens it; the rotated instance signs with the same secret.
      expect((await rotated.http.post(`/v1/webhooks/${hook.id}/test`, undefined, { token: owner.accessToken })).status).toBe(202);
    } finally {
      await rotated.app.close();
    }
  });
});
