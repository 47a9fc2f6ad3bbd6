import { DataSource } from 'typeorm';
import { startTestApp, type TestApp } from './support/app.js';
import { addMember, createApiKey, registerOwner, type RegisteredOwner } from './support/factories.js';
import { createWebhook, deliveries, eventually, WebhookReceiver } from './support/webhooks.js';

/** Endpoints, validation and access. Whatever gets delivered meanwhile (test events, member.*) lands in a local sink. */
describe('webhooks API', () => {
  let t: TestApp;
  let owner: RegisteredOwner;
  let sink: WebhookReceiver;
  const auth = (): { token: string } => ({ token: owner.accessToken });
  const url = (path: string): string => sink.url(path);

  beforeAll(async () => {
    sink = await WebhookReceiver.start();
    t = await startTestApp();
    owner = await registerOwner(t.http);
  });
  afterAll(async () => {
    await t?.close();
    await sink?.stop();
  });

  it('creates a webhook with a secret shown once and stored only encrypted', async () => {
    const res = await t.http.post(
      '/v1/webhooks',
      { url: url('/crm'), events: ['booking.created', 'member.invited'], description: 'CRM sync' },
      auth(),
    );
    expect(res.status).toBe(201);
    const { webhook, secret } = res.body;
    expect(webhook).toEqual({
      id: expect.stringMatching(/^wh_[0-9A-Za-z]{20,}$/),
      url: url('/crm'),
      events: ['booking.created', 'member.invited'],
      description: 'CRM sync',
      active: true,
      livemode: true,
      createdAt: t.clock.now().toISOString(),
    });
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(secret.slice('whsec_'.length), 'base64').length).toBeGreaterThanOrEqual(24);

    const one = await t.http.get(`/v1/webhooks/${webhook.id}`, auth());
    expect(one.status).toBe(200);
    expect(one.body).toEqual({ webhook });
    const list = await t.http.get('/v1/webhooks', auth());
    expect(list.body.webhooks.map((w: { id: string }) => w.id)).toContain(webhook.id);
    for (const text of [one.text, list.text]) expect(text).not.toContain(secret.slice(6));

    const [row] = await t.app.get(DataSource).query(`SELECT * FROM webhooks WHERE id = $1`, [webhook.id]);
    const stored = JSON.stringify(row);
    expect(stored).not.toContain(secret.slice(6));
    expect(stored).not.toContain(Buffer.from(secret.slice(6), 'base64').toString('hex'));
    expect(row.secret_ciphertext).toMatch(/^k1\./);
  });

  it('updates, lists with paging and deletes', async () => {
    const other = await registerOwner(t.http);
    const a = await createWebhook(t.http, { token: other.accessToken }, { url: url('/a'), events: ['*'] });
    const b = await createWebhook(t.http, { token: other.accessToken }, { url: url('/b'), events: ['*'], active: false });
    const c = await createWebhook(t.http, { token: other.accessToken }, { url: url('/c'), events: ['member.joined'] });
    expect(b.webhook.active).toBe(false);

    const patched = await t.http.patch(
      `/v1/webhooks/${a.id}`,
      { events: ['booking.cancelled'], description: 'now described', active: false, url: url('/a2') },
      { token: other.accessToken },
    );
    expect(patched.status).toBe(200);
    expect(patched.body.webhook).toMatchObject({
      id: a.id,
      events: ['booking.cancelled'],
      description: 'now described',
      active: false,
      url: url('/a2'),
    });
    const cleared = await t.http.patch(`/v1/webhooks/${a.id}`, { description: null }, { token: other.accessToken });
    expect(cleared.body.webhook.description).toBeNull();
    const unchanged = await t.http.patch(`/v1/webhooks/${a.id}`, {}, { token: other.accessToken });
    expect(unchanged.body.webhook).toEqual(cleared.body.webhook);

    const page1 = await t.http.get('/v1/webhooks?page=1&limit=2', { token: other.accessToken });
    expect(page1.body).toMatchObject({ totalCount: 3, hasMore: true });
    expect(page1.body.webhooks).toHaveLength(2);
    const page2 = await t.http.get('/v1/webhooks?page=2&limit=2', { token: other.accessToken });
    expect(page2.body).toMatchObject({ totalCount: 3, hasMore: false });
    expect(new Set([...page1.body.webhooks, ...page2.body.webhooks].map((w: { id: string }) => w.id))).toEqual(new Set([a.id, b.id, c.id]));
    for (const query of ['page=0', 'limit=0', 'limit=101', 'page=x']) {
      expect((await t.http.get(`/v1/webhooks?${query}`, { token: other.accessToken })).status).toBe(400);
    }

    expect((await t.http.delete(`/v1/webhooks/${c.id}`, { token: other.accessToken })).status).toBe(204);
    expect((await t.http.get(`/v1/webhooks/${c.id}`, { token: other.accessToken })).status).toBe(404);
    expect((await t.http.delete(`/v1/webhooks/${c.id}`, { token: other.accessToken })).status).toBe(404);
  });

  it.each([
    [{ events: ['*'] }, 'url'],
    [{ url: 'not a url', events: ['*'] }, 'url'],
    [{ url: 'ftp://files.example.com/drop', events: ['*'] }, 'url'],
    [{ url: '//example.com/h', events: ['*'] }, 'url'],
    [{ url: 'https://user:pw@127.0.0.1:9/h', events: ['*'] }, 'url'],
    [{ url: `https://127.0.0.1:9/${'x'.repeat(2100)}`, events: ['*'] }, 'url'],
    [{ url: 42, events: ['*'] }, 'url'],
    [{ url: 'https://127.0.0.1:9/h' }, 'events'],
    [{ url: 'https://127.0.0.1:9/h', events: [] }, 'events'],
    [{ url: 'https://127.0.0.1:9/h', events: 'booking.created' }, 'events'],
    [{ url: 'https://127.0.0.1:9/h', events: ['booking.exploded'] }, 'events'],
    [{ url: 'https://127.0.0.1:9/h', events: ['booking.created', 'booking.created'] }, 'events'],
    [{ url: 'https://127.0.0.1:9/h', events: [7] }, 'events'],
    [{ url: 'https://127.0.0.1:9/h', events: ['*'], description: 'x'.repeat(501) }, 'description'],
    [{ url: 'https://127.0.0.1:9/h', events: ['*'], active: 'yes' }, 'active'],
    [{ url: 'https://127.0.0.1:9/h', events: ['*'], active: null }, 'active'],
    [{ url: 'https://127.0.0.1:9/h', events: ['*'], secret: 'whsec_mine' }, 'secret'],
    [{ url: 'https://127.0.0.1:9/h', events: ['*'], livemode: false }, 'livemode'],
  ])('refuses %j with 400 naming %s', async (body, field) => {
    const res = await t.http.post('/v1/webhooks', body, auth());
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it.each([
    [{ url: null }, 'url'],
    [{ url: 'gopher://example.com' }, 'url'],
    [{ events: [] }, 'events'],
    [{ events: null }, 'events'],
    [{ events: ['nope'] }, 'events'],
    [{ active: 1 }, 'active'],
    [{ id: 'wh_other' }, 'id'],
  ])('refuses PATCH %j with 400 naming %s', async (body, field) => {
    const { id } = await createWebhook(t.http, auth(), { url: url('/mine'), events: ['*'] });
    const res = await t.http.patch(`/v1/webhooks/${id}`, body, auth());
    expect(res.status).toBe(400);
    expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it('answers 404 for another organization’s and unknown ids, 400 for malformed ones, on every route', async () => {
    const stranger = await registerOwner(t.http);
    const foreign = await createWebhook(t.http, { token: stranger.accessToken }, { url: url('/stranger'), events: ['*'] });
    const mine = await createWebhook(t.http, auth(), { url: url('/mine'), events: ['*'] });
    const test = await t.http.post(`/v1/webhooks/${foreign.id}/test`, undefined, { token: stranger.accessToken });
    expect(test.status).toBe(202);
    const foreignDelivery = test.body.delivery.id;

    for (const [id, status] of [
      [foreign.id, 404],
      ['wh_AAAAAAAAAAAAAAAAAAAAAAAA', 404],
      ['nope', 400],
      ['wh_../../etc', 400],
    ] as const) {
      const responses = [
        await t.http.get(`/v1/webhooks/${encodeURIComponent(id)}`, auth()),
        await t.http.patch(`/v1/webhooks/${encodeURIComponent(id)}`, { active: false }, auth()),
        await t.http.delete(`/v1/webhooks/${encodeURIComponent(id)}`, auth()),
        await t.http.post(`/v1/webhooks/${encodeURIComponent(id)}/test`, undefined, auth()),
        await t.http.get(`/v1/webhooks/${encodeURIComponent(id)}/deliveries`, auth()),
        await t.http.post(`/v1/webhooks/${encodeURIComponent(id)}/deliveries/${foreignDelivery}/retry`, undefined, auth()),
      ];
      expect(responses.map((r) => r.status)).toEqual(Array(6).fill(status));
      expect(responses.every((r) => r.body.code === (status === 404 ? 'NOT_FOUND' : 'VALIDATION_ERROR'))).toBe(true);
    }
    // Someone else's delivery under my own webhook is not found either.
    const retry = await t.http.post(`/v1/webhooks/${mine.id}/deliveries/${foreignDelivery}/retry`, undefined, auth());
    expect(retry.status).toBe(404);
    expect((await t.http.post(`/v1/webhooks/${mine.id}/deliveries/whdel_nope/retry`, undefined, auth())).status).toBe(400);
    // And the foreign webhook is untouched.
    expect((await t.http.get(`/v1/webhooks/${foreign.id}`, { token: stranger.accessToken })).body.webhook.active).toBe(true);
  });

  it('lets owners and admins in, keeps members out (403), and checks API key scopes', async () => {
    const org = await registerOwner(t.http);
    const admin = await addMember(t, org.accessToken, org.organizationId, 'admin');
    const member = await addMember(t, org.accessToken, org.organizationId, 'member');
    expect((await t.http.post('/v1/webhooks', { url: url('/admin'), events: ['*'] }, { token: admin.accessToken })).status).toBe(201);
    for (const res of [
      await t.http.get('/v1/webhooks', { token: member.accessToken }),
      await t.http.post('/v1/webhooks', { url: url('/member'), events: ['*'] }, { token: member.accessToken }),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('FORBIDDEN');
    }

    const reader = await createApiKey(t.http, org.accessToken, { scopes: ['webhooks:read'] });
    const writer = await createApiKey(t.http, org.accessToken, { scopes: ['webhooks:write'] });
    const denied = await t.http.post('/v1/webhooks', { url: url('/reader'), events: ['*'] }, { apiKey: reader.apiKey });
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe('INSUFFICIENT_SCOPE');
    expect(denied.body.message).toContain('webhooks:write');
    expect((await t.http.get('/v1/webhooks', { apiKey: reader.apiKey })).status).toBe(200);
    const created = await createWebhook(t.http, { apiKey: writer.apiKey }, { url: url('/writer'), events: ['*'] });
    for (const res of [
      await t.http.get('/v1/webhooks', { apiKey: writer.apiKey }),
      await t.http.get(`/v1/webhooks/${created.id}/deliveries`, { apiKey: writer.apiKey }),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('INSUFFICIENT_SCOPE');
    }
    for (const path of [`/v1/webhooks/${created.id}/test`, `/v1/webhooks/${created.id}/deliveries/whdel_AAAAAAAAAAAAAAAAAAAAAAAA/retry`]) {
      expect((await t.http.post(path, undefined, { apiKey: reader.apiKey })).body.code).toBe('INSUFFICIENT_SCOPE');
    }
    expect((await t.http.get('/v1/webhooks')).status).toBe(401);
  });

  it('keeps test-mode and live webhooks apart', async () => {
    const org = await registerOwner(t.http);
    const live = await createApiKey(t.http, org.accessToken, { mode: 'live' });
    const test = await createApiKey(t.http, org.accessToken, { mode: 'test' });
    const sandbox = await createWebhook(t.http, { apiKey: test.apiKey }, { url: url('/test-mode'), events: ['*'] });
    const production = await createWebhook(t.http, { apiKey: live.apiKey }, { url: url('/live-mode'), events: ['*'] });
    expect(sandbox.webhook.livemode).toBe(false);
    expect(production.webhook.livemode).toBe(true);

    const ids = async (auth: { apiKey?: string; token?: string }): Promise<string[]> =>
      (await t.http.get('/v1/webhooks', auth)).body.webhooks.map((w: { id: string }) => w.id);
    expect(await ids({ apiKey: test.apiKey })).toEqual([sandbox.id]);
    expect(await ids({ apiKey: live.apiKey })).toEqual([production.id]);
    expect(await ids({ token: org.accessToken })).toEqual([production.id]);
    for (const [id, who] of [
      [sandbox.id, { apiKey: live.apiKey }],
      [sandbox.id, { token: org.accessToken }],
      [production.id, { apiKey: test.apiKey }],
    ] as const) {
      expect((await t.http.get(`/v1/webhooks/${id}`, who)).status).toBe(404);
      expect((await t.http.patch(`/v1/webhooks/${id}`, { active: false }, who)).status).toBe(404);
      expect((await t.http.post(`/v1/webhooks/${id}/test`, undefined, who)).status).toBe(404);
      expect((await t.http.delete(`/v1/webhooks/${id}`, who)).status).toBe(404);
    }
    const testDelivery = await t.http.post(`/v1/webhooks/${sandbox.id}/test`, undefined, { apiKey: test.apiKey });
    expect(testDelivery.status).toBe(202);
    expect(testDelivery.body.delivery).toMatchObject({ eventType: 'webhook.test', status: 'pending', attempts: 0 });
  });

  it('lists each webhook with its deliveries that failed in the 24 hours before the Clock’s now', async () => {
    const org = await registerOwner(t.http);
    const who = { token: org.accessToken };
    // An API key reads the list: the access token would not survive the Clock's moves below.
    const reader = { apiKey: (await createApiKey(t.http, org.accessToken, { scopes: ['webhooks:read'] })).apiKey };
    sink.respond('/gone', () => ({ status: 410 }));
    const failing = await createWebhook(t.http, who, { url: url('/gone'), events: ['*'] });
    const quiet = await createWebhook(t.http, who, { url: url('/quiet'), events: ['*'] });
    // A real failure: the 410 fails the test event at its first attempt.
    expect((await t.http.post(`/v1/webhooks/${failing.id}/test`, undefined, who)).status).toBe(202);
    await eventually(
      async () => ((await deliveries(t.http, who, failing.id))[0]?.status === 'failed' ? true : undefined),
      5000,
      'the 410 to fail the delivery',
    );
    // As the worker leaves them: a failure 25 hours before the Clock's now, a recent success, and the quiet one's old failure.
    const now = t.clock.now();
    const hoursAgo = (hours: number): Date => new Date(now.getTime() - hours * 3_600_000);
    for (const [id, webhookId, status, at] of [
      ['whdel_oldfailure', failing.id, 'failed', hoursAgo(25)],
      ['whdel_recentsuccess', failing.id, 'succeeded', hoursAgo(1)],
      ['whdel_quietfailure', quiet.id, 'failed', hoursAgo(30)],
    ] as const) {
      await t.app.get(DataSource).query(
        `INSERT INTO webhook_deliveries (id, webhook_id, organization_id, event_id, event_type, body, status, attempts, max_attempts,
                                         next_attempt_at, last_attempt_at, response_status, created_at)
         VALUES ($1, $2, $3, $1, 'booking.created', '{}', $4, 1, 1, NULL, $5, 500, $5)`,
        [id, webhookId, org.organizationId, status, at],
      );
    }
    const counts = async (): Promise<Record<string, number>> => {
      const res = await t.http.get('/v1/webhooks', reader);
      expect(res.status).toBe(200);
      return Object.fromEntries(
        res.body.webhooks.map((w: { id: string; failedDeliveriesLast24h: number }) => [w.id, w.failedDeliveriesLast24h]),
      );
    };
    try {
      expect(await counts()).toEqual({ [failing.id]: 1, [quiet.id]: 0 });
      // Two hours earlier by the Clock, the 25-hour-old failure is inside the window too.
      t.clock.set(hoursAgo(2));
      expect(await counts()).toEqual({ [failing.id]: 2, [quiet.id]: 0 });
      // Two days on, neither is.
      t.clock.set(hoursAgo(-48));
      expect(await counts()).toEqual({ [failing.id]: 0, [quiet.id]: 0 });
    } finally {
      t.clock.set(now);
    }
    // Only the list carries the count; the webhook itself is unchanged.
    expect(Object.keys((await t.http.get(`/v1/webhooks/${failing.id}`, who)).body.webhook)).not.toContain('failedDeliveriesLast24h');
  });

  it('documents every webhook operation with its scope', async () => {
    const doc = (await t.http.get('/docs-json')).body as { paths: Record<string, Record<string, { 'x-required-scope'?: string }>> };
    const scopes = Object.entries(doc.paths)
      .filter(([path]) => path.startsWith('/v1/webhooks'))
      .flatMap(([path, ops]) => Object.entries(ops).map(([verb, op]) => `${verb.toUpperCase()} ${path} ${op['x-required-scope']}`))
      .sort();
    expect(scopes).toEqual([
      'DELETE /v1/webhooks/{id} webhooks:write',
      'GET /v1/webhooks webhooks:read',
      'GET /v1/webhooks/{id} webhooks:read',
      'GET /v1/webhooks/{id}/deliveries webhooks:read',
      'PATCH /v1/webhooks/{id} webhooks:write',
      'POST /v1/webhooks webhooks:write',
      'POST /v1/webhooks/{id}/deliveries/{deliveryId}/retry webhooks:write',
      'POST /v1/webhooks/{id}/test webhooks:write',
    ]);
  });
});
