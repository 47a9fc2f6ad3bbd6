import { startTestApp, type TestApp } from './support/app.js';
import { createApiKey, registerOwner, uniqueEmail, type RegisteredOwner } from './support/factories.js';
import { attemptLog, createWebhook, deliveries, eventually, recordEvents, WebhookReceiver } from './support/webhooks.js';

/** Delivery semantics against a local receiver that verifies every signature. Three retries of 1 s. */
describe('webhook delivery', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  let owner: RegisteredOwner;
  const auth = (): { token: string } => ({ token: owner.accessToken });

  async function hook(path: string, body: Record<string, unknown> = {}, who: { token?: string; apiKey?: string } = auth()) {
    const created = await createWebhook(t.http, who, { url: receiver.url(path), events: ['*'], ...body });
    receiver.expectSecret(path, created.secret);
    return created;
  }

  async function deliveryOf(webhookId: string, predicate: (d: any) => boolean, what: string, timeoutMs = 8000, who = auth()): Promise<any> {
    return eventually(async () => (await deliveries(t.http, who, webhookId)).find(predicate), timeoutMs, what);
  }

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    t = await startTestApp({ env: { WEBHOOK_RETRY_SCHEDULE: '1,1,1', WEBHOOK_TIMEOUT_MS: '5000' } });
    owner = await registerOwner(t.http);
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.stop();
    expect(receiver.unverified()).toEqual([]);
  });

  it('retries 500, 500 and succeeds on 200: three signed attempts with one webhook-id', async () => {
    receiver.respond('/flaky', (_req, nth) => ({ status: nth < 3 ? 500 : 200 }));
    const { id } = await hook('/flaky', { events: ['booking.created'] });
    const [eventId] = await recordEvents(t, [
      { organizationId: owner.organizationId, type: 'booking.created', data: { booking: { id: 'bkg_1' } } },
    ]);

    const done = await deliveryOf(id, (d) => d.status === 'succeeded', 'the delivery to succeed');
    expect(done).toEqual({
      id: expect.stringMatching(/^whdel_[0-9A-Za-z]{20,}$/),
      eventId,
      eventType: 'booking.created',
      status: 'succeeded',
      attempts: 3,
      lastAttemptAt: expect.any(String),
      nextAttemptAt: null,
      responseStatus: 200,
      lastError: null,
      createdAt: expect.any(String),
    });
    const requests = receiver.at('/flaky');
    expect(requests).toHaveLength(3);
    expect(requests.every((r) => r.verified && r.webhookId === eventId && r.contentType === 'application/json')).toBe(true);
    expect(requests.map((r) => r.body)).toEqual([requests[0].body, requests[0].body, requests[0].body]);
    // The first attempt is immediate, then never sooner than the schedule's 1 s (jitter only lengthens, by ≤ 10 %).
    for (let i = 1; i < requests.length; i++) expect(requests[i].receivedAt - requests[i - 1].receivedAt).toBeGreaterThanOrEqual(1000);
    expect(requests[0].payload).toEqual({
      id: eventId,
      type: 'booking.created',
      createdAt: t.clock.now().toISOString(),
      livemode: true,
      data: { booking: { id: 'bkg_1' } },
    });
    const log = await attemptLog(t, done.id);
    expect(log.map((a) => [a.attempt, a.response_status, a.error])).toEqual([
      [1, 500, 'HTTP 500'],
      [2, 500, 'HTTP 500'],
      [3, 200, null],
    ]);
  });

  it('does not follow redirects: records the 302, retries, fails; the target never hears a thing', async () => {
    receiver.respond('/moved', () => ({ status: 302, headers: { location: receiver.url('/target') } }));
    receiver.respond('/target', () => ({ status: 200 }));
    const { id } = await hook('/moved', { events: ['member.updated'] });
    await recordEvents(t, [{ organizationId: owner.organizationId, type: 'member.updated' }]);

    const failed = await deliveryOf(id, (d) => d.status === 'failed', 'the delivery to fail');
    expect(failed).toMatchObject({ attempts: 4, responseStatus: 302, nextAttemptAt: null });
    expect(receiver.at('/moved')).toHaveLength(4);
    expect(receiver.at('/target')).toHaveLength(0);

    // One more attempt now, whatever the status; then failed again, still without following.
    const retry = await t.http.post(`/v1/webhooks/${id}/deliveries/${failed.id}/retry`, undefined, auth());
    expect(retry.status).toBe(202);
    expect(retry.body.delivery).toMatchObject({ id: failed.id, status: 'pending', attempts: 4 });
    await deliveryOf(id, (d) => d.attempts === 5 && d.status === 'failed', 'the manual attempt');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(receiver.at('/moved')).toHaveLength(5);
    expect(receiver.at('/target')).toHaveLength(0);
  });

  it('stops at 410: the delivery fails after one attempt and the webhook is disabled', async () => {
    receiver.respond('/gone', () => ({ status: 410 }));
    const { id } = await hook('/gone', { events: ['member.removed'] });
    await recordEvents(t, [{ organizationId: owner.organizationId, type: 'member.removed' }]);
    const failed = await deliveryOf(id, (d) => d.status === 'failed', 'the 410 to be recorded');
    expect(failed).toMatchObject({ attempts: 1, responseStatus: 410, nextAttemptAt: null });
    expect((await t.http.get(`/v1/webhooks/${id}`, auth())).body.webhook.active).toBe(false);

    // Disabled: later events are not even queued for it.
    await recordEvents(t, [{ organizationId: owner.organizationId, type: 'member.removed' }]);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(receiver.at('/gone')).toHaveLength(1);
    expect(await deliveries(t.http, auth(), id)).toHaveLength(1);

    // The list filters the console's home page uses: failed ones, attempted since an instant.
    const since = new Date(Date.parse(failed.lastAttemptAt) - 60_000).toISOString();
    const list = (query: string) => t.http.get(`/v1/webhooks/${id}/deliveries?${query}`, auth());
    expect((await list(`status=failed&since=${since}`)).body).toMatchObject({ totalCount: 1, deliveries: [{ id: failed.id }] });
    expect((await list('status=succeeded')).body.totalCount).toBe(0);
    const later = new Date(Date.parse(failed.lastAttemptAt) + 1000).toISOString();
    expect((await list(`status=failed&since=${later}`)).body.totalCount).toBe(0);
    for (const [query, field] of [
      ['status=lost', 'status'],
      ['since=yesterday', 'since'],
    ]) {
      const refused = await list(query);
      expect(refused.status).toBe(400);
      expect(refused.body.details.map((d: { field: string }) => d.field)).toEqual([field]);
    }
  });

  it('sends a signed webhook.test on demand, and one more attempt of a delivered event on retry', async () => {
    const { id, webhook } = await hook('/ping', { events: ['booking.cancelled'] });
    const res = await t.http.post(`/v1/webhooks/${id}/test`, undefined, auth());
    expect(res.status).toBe(202);
    expect(res.body.delivery).toMatchObject({ eventType: 'webhook.test', status: 'pending', attempts: 0, responseStatus: null });
    const delivery = res.body.delivery;

    await receiver.waitFor(() => receiver.at('/ping').length === 1, 5000, 'the test event');
    const [ping] = receiver.at('/ping');
    expect(ping.verified).toBe(true);
    expect(ping.webhookId).toBe(delivery.eventId);
    expect(ping.payload).toEqual({
      id: delivery.eventId,
      type: 'webhook.test',
      createdAt: expect.any(String),
      livemode: true,
      data: { webhook },
    });
    await deliveryOf(id, (d) => d.id === delivery.id && d.status === 'succeeded', 'the test delivery');

    const retry = await t.http.post(`/v1/webhooks/${id}/deliveries/${delivery.id}/retry`, undefined, auth());
    expect(retry.status).toBe(202);
    await receiver.waitFor(() => receiver.at('/ping').length === 2, 5000, 'the retried test event');
    expect(receiver.at('/ping')[1].webhookId).toBe(delivery.eventId);
    expect(await deliveryOf(id, (d) => d.attempts === 2 && d.status === 'succeeded', 'the second attempt')).toMatchObject({
      responseStatus: 200,
    });
  });

  it('delivers only subscribed events, nothing to inactive endpoints, and keeps test and live mode apart', async () => {
    const org = await registerOwner(t.http);
    const testKey = await createApiKey(t.http, org.accessToken, { mode: 'test' });
    const orgAuth = { token: org.accessToken };
    await hook('/members-only', { events: ['member.invited'] }, orgAuth);
    await hook('/everything', { events: ['*'] }, orgAuth);
    await hook('/bookings-only', { events: ['booking.created'] }, orgAuth);
    await hook('/inactive', { events: ['*'], active: false }, orgAuth);
    const sandbox = await hook('/sandbox', { events: ['*'] }, { apiKey: testKey.apiKey });

    // member.invited through the Team module, as the API records it.
    const email = uniqueEmail('invitee');
    const invite = await t.http.post(`/v1/organizations/${org.organizationId}/members`, { email, role: 'member' }, orgAuth);
    expect(invite.status).toBe(201);
    const [cancelled] = await recordEvents(t, [{ organizationId: org.organizationId, type: 'booking.cancelled' }]);
    const [testOnly] = await recordEvents(t, [
      { organizationId: org.organizationId, livemode: false, type: 'booking.created', data: { booking: { id: 'bkg_test' } } },
    ]);
    // Another organization's events go to its own endpoints only.
    await recordEvents(t, [{ organizationId: owner.organizationId, type: 'member.invited' }]);

    await receiver.waitFor(() => receiver.at('/everything').length === 2 && receiver.at('/sandbox').length === 1, 8000, 'fan-out');
    await receiver.waitFor(() => receiver.at('/members-only').length === 1, 3000, 'member.invited');
    await new Promise((resolve) => setTimeout(resolve, 1000));

    const invited = receiver.at('/members-only')[0].payload;
    expect(invited).toMatchObject({ type: 'member.invited', livemode: true, data: { member: { email } } });
    expect(invited.id).toMatch(/^whevt_/);
    expect(
      receiver
        .at('/everything')
        .map((r) => r.payload.type)
        .sort(),
    ).toEqual(['booking.cancelled', 'member.invited']);
    expect(receiver.at('/everything').find((r) => r.payload.type === 'booking.cancelled')?.webhookId).toBe(cancelled);
    expect(receiver.at('/bookings-only')).toHaveLength(0);
    expect(receiver.at('/inactive')).toHaveLength(0);
    expect(receiver.at('/sandbox').map((r) => r.payload)).toEqual([
      { id: testOnly, type: 'booking.created', createdAt: expect.any(String), livemode: false, data: { booking: { id: 'bkg_test' } } },
    ]);
    const sandboxDeliveries = await deliveries(t.http, { apiKey: testKey.apiKey }, sandbox.id);
    expect(sandboxDeliveries.map((d) => d.eventId)).toEqual([testOnly]);
  });
});

describe('webhook attempt timeout', () => {
  it('counts a receiver that does not answer within WEBHOOK_TIMEOUT_MS as a failed attempt and retries', async () => {
    const receiver = await WebhookReceiver.start();
    const t = await startTestApp({ env: { WEBHOOK_RETRY_SCHEDULE: '1,1,1', WEBHOOK_TIMEOUT_MS: '300' } });
    try {
      const owner = await registerOwner(t.http);
      receiver.respond('/slow', (_req, nth) => (nth === 1 ? { status: 200, delayMs: 3000 } : { status: 200 }));
      const created = await createWebhook(
        t.http,
        { token: owner.accessToken },
        { url: receiver.url('/slow'), events: ['event_type.created'] },
      );
      receiver.expectSecret('/slow', created.secret);
      await recordEvents(t, [{ organizationId: owner.organizationId, type: 'event_type.created' }]);

      const done = await eventually(
        async () => (await deliveries(t.http, { token: owner.accessToken }, created.id)).find((d) => d.status === 'succeeded'),
        8000,
        'the retry to succeed',
      );
      expect(done.attempts).toBe(2);
      const log = await attemptLog(t, done.id);
      expect(log[0]).toMatchObject({ attempt: 1, response_status: null, error: 'Timed out after 300 ms' });
      expect(log[0].duration_ms).toBeGreaterThanOrEqual(290);
      expect(log[0].duration_ms).toBeLessThan(2000);
      expect(log[1]).toMatchObject({ attempt: 2, response_status: 200, error: null });
      expect(receiver.unverified()).toEqual([]);
    } finally {
      await t.close();
      await receiver.stop();
    }
  });
});
