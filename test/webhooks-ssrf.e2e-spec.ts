import { startTestApp, type TestApp } from './support/app.js';
import { registerOwner, type RegisteredOwner } from './support/factories.js';
import { attemptLog, createWebhook, deliveries, eventually, recordEvents, WebhookReceiver } from './support/webhooks.js';

/**
 * WEBHOOK_ALLOW_PRIVATE_URLS=false. Every target here is a 127.0.0.1 receiver or an address the guard
 * must refuse before connecting; the receiver counts TCP connections to prove none was made.
 */
describe('webhook SSRF guard', () => {
  let strict: TestApp;
  let lenient: TestApp;
  let receiver: WebhookReceiver;
  let owner: RegisteredOwner;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    strict = await startTestApp({ env: { NODE_ENV: 'production', WEBHOOK_ALLOW_PRIVATE_URLS: 'false', WEBHOOK_RETRY_SCHEDULE: '60' } });
    // The same service configured for development, delivering nothing itself: it can create what strict refuses.
    lenient = await startTestApp({ databaseUrl: strict.databaseUrl, env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', RUN_WORKERS: 'false' } });
    owner = await registerOwner(strict.http);
  });
  afterAll(async () => {
    await lenient?.close();
    await strict?.close();
    await receiver?.stop();
  });

  it.each([
    'http://127.0.0.1:PORT/hook',
    'https://127.0.0.1:PORT/hook',
    'https://10.0.0.1/hook',
    'https://172.16.0.1/hook',
    'https://192.168.1.10/hook',
    'https://169.254.169.254/latest/meta-data/',
    'https://[::1]:PORT/hook',
    'https://[::ffff:127.0.0.1]:PORT/hook',
    'https://[fd00::1]/hook',
    'https://0.0.0.0:PORT/hook',
    'https://2130706433:PORT/hook',
    'https://localhost:PORT/hook',
    'http://93.184.216.34/hook',
  ])('refuses %s at create with 400 naming url, without connecting', async (template) => {
    const url = template.replace('PORT', String(receiver.port));
    const res = await strict.http.post('/v1/webhooks', { url, events: ['*'] }, { token: owner.accessToken });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(res.body.details).toEqual([
      { field: 'url', message: expect.stringMatching(/https URL whose host resolves only to public addresses/) },
    ]);
    expect(receiver.connections).toBe(0);
  });

  it('accepts a public https address and refuses a PATCH onto a private one', async () => {
    // An IP literal needs no DNS; inactive, in an organization no event is ever recorded for, so nothing is sent.
    const other = await registerOwner(strict.http);
    const created = await createWebhook(
      strict.http,
      { token: other.accessToken },
      { url: 'https://93.184.216.34/hook', events: ['*'], active: false },
    );
    try {
      for (const url of ['https://10.0.0.1/hook', 'https://localhost/hook', 'http://93.184.216.34/hook']) {
        const res = await strict.http.patch(`/v1/webhooks/${created.id}`, { url }, { token: other.accessToken });
        expect(res.status).toBe(400);
        expect(res.body.details[0].field).toBe('url');
      }
      expect((await strict.http.get(`/v1/webhooks/${created.id}`, { token: other.accessToken })).body.webhook.url).toBe(
        'https://93.184.216.34/hook',
      );
    } finally {
      await strict.http.delete(`/v1/webhooks/${created.id}`, { token: other.accessToken });
    }
  });

  it('fails every attempt to a private target at delivery, without a request, even when created while allowed', async () => {
    const lenientAuth = {
      token: (await lenient.http.post('/v1/auth/login', { email: owner.email, password: owner.password })).body.accessToken,
    };
    const plain = await createWebhook(lenient.http, lenientAuth, { url: receiver.url('/plain'), events: ['booking.created'] });
    const loopbackName = await createWebhook(lenient.http, lenientAuth, {
      url: `https://localhost:${receiver.port}/named`,
      events: ['booking.created'],
    });
    const mapped = await createWebhook(lenient.http, lenientAuth, {
      url: `https://[::ffff:127.0.0.1]:${receiver.port}/mapped`,
      events: ['booking.created'],
    });
    await recordEvents(strict, [{ organizationId: owner.organizationId, type: 'booking.created' }]);

    const expected: [string, RegExp][] = [
      [plain.id, /plain http is not allowed/],
      [loopbackName.id, /resolves to a loopback address/],
      [mapped.id, /resolves to a loopback address/],
    ];
    for (const [id, error] of expected) {
      const attempted = await eventually(
        async () =>
          (await deliveries(strict.http, { token: owner.accessToken }, id)).find(
            (d) => d.attempts === 1 && d.lastAttemptAt && d.nextAttemptAt,
          ),
        5000,
        'a refused attempt',
      );
      expect(attempted).toMatchObject({ status: 'pending', responseStatus: null });
      await eventually(async () => ((await attemptLog(strict, attempted.id)).length === 1 ? true : undefined), 3000, 'the attempt log');
      const [log] = await attemptLog(strict, attempted.id);
      expect(log).toMatchObject({ attempt: 1, response_status: null });
      expect(log.error).toMatch(error);
    }
    expect(receiver.connections).toBe(0);
    expect(receiver.received).toEqual([]);
  });
});
