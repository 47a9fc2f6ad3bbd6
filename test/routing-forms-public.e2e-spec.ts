import { DataSource } from 'typeorm';
import { startTestApp, type TestApp } from './support/app.js';
import { bookingOrg, NOW, type BookingOrg } from './support/bookings.js';
import { createApiKey } from './support/factories.js';
import { HttpClient } from './support/http.js';
import { fromAddress } from './support/visitor.js';
import { createWebhook, WebhookReceiver } from './support/webhooks.js';

const SHOP = 'https://shop.example.com';
const MINUTE = 60_000;

const FIELDS = [
  { id: 'email', label: 'Work email', type: 'email', required: true },
  { id: 'size', label: 'Company size', type: 'number' },
];

describe('routing forms from the browser (contract § 22, publishable keys of § 14)', () => {
  let t: TestApp;
  let org: BookingOrg;
  let receiver: WebhookReceiver;
  let raw: HttpClient;
  let pk: string;
  let formId: string;

  const form = () => ({
    name: 'Inbound',
    fields: FIELDS,
    routes: [
      { when: { all: [{ field: 'size', op: 'gte', value: 200 }] }, to: { eventTypeId: org.eventTypeId, hostUserIds: [org.owner.userId] } },
    ],
    fallback: { message: 'We will write to you.' },
  });
  const createForm = async (): Promise<string> => {
    const res = await t.http.post('/v1/routing-forms', form(), { apiKey: org.apiKey });
    expect(res.status).toBe(201);
    return res.body.routingForm.id as string;
  };
  const fromShop = (key = pk) => ({ apiKey: key, headers: { origin: SHOP } });

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    // PUBLIC_BOOKINGS_PER_VISITOR_PER_HOUR × 5 = 10 responses per visitor and key an hour here.
    t = await startTestApp({ env: { PUBLIC_BOOKINGS_PER_VISITOR_PER_HOUR: '2' } });
    raw = new HttpClient(t.url, { checkContract: false });
    org = await bookingOrg(t);
    formId = await createForm();
    pk = (await createApiKey(t.http, org.owner.accessToken, { kind: 'publishable', allowedOrigins: [SHOP] })).apiKey;
  });
  afterAll(async () => {
    await t.close();
    await receiver.stop();
  });

  it('shows the form’s fields only, and submits answers routed without host ids', async () => {
    const got = await t.http.get(`/v1/public/routing-forms/${formId}`, fromShop());
    expect(got.status).toBe(200);
    expect(got.body).toEqual({
      routingForm: {
        id: formId,
        name: 'Inbound',
        fields: [
          { id: 'email', label: 'Work email', type: 'email', required: true },
          { id: 'size', label: 'Company size', type: 'number', required: false },
        ],
      },
    });
    const big = await t.http.post(
      `/v1/public/routing-forms/${formId}/responses`,
      { answers: { email: 'a@big.example', size: 900 } },
      fromShop(),
    );
    expect(big.status).toBe(201);
    // The attendee sees where to go, never which hosts: the response keeps them for the routed booking.
    expect(big.body).toEqual({ response: { id: expect.stringMatching(/^rtr_/) as unknown, route: { eventTypeId: org.eventTypeId } } });
    const listed = await t.http.get(`/v1/routing-forms/${formId}/responses`, { apiKey: org.apiKey });
    expect(listed.body.responses[0]).toMatchObject({
      id: big.body.response.id,
      route: { eventTypeId: org.eventTypeId, hostUserIds: [org.owner.userId] },
      matchedRoute: 0,
    });
    const small = await t.http.post(`/v1/public/routing-forms/${formId}/responses`, { answers: { email: 'a@small.example' } }, fromShop());
    expect(small.body.response.route).toEqual({ message: 'We will write to you.' });
  });

  it('checks answers as booking answers: 400 naming answers.<id>', async () => {
    const bad = await t.http.post(`/v1/public/routing-forms/${formId}/responses`, { answers: { size: 'many', nope: 1 } }, fromShop());
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('VALIDATION_ERROR');
    expect(bad.body.details.map((d: { field: string }) => d.field).sort()).toEqual(['answers.email', 'answers.nope', 'answers.size']);
    expect(bad.headers.get('access-control-allow-origin')).toBe(SHOP);
    const notObject = await t.http.post(`/v1/public/routing-forms/${formId}/responses`, { answers: 'x' }, fromShop());
    expect([notObject.status, notObject.body.details[0].field]).toEqual([400, 'answers']);
  });

  it('refuses another origin, no Origin, a secret key and a JWT', async () => {
    const path = `/v1/public/routing-forms/${formId}`;
    const evil = await raw.get(path, { apiKey: pk, headers: { origin: 'https://evil.example.com' } });
    expect([evil.status, evil.body.code]).toEqual([403, 'ORIGIN_NOT_ALLOWED']);
    expect(evil.headers.get('access-control-allow-origin')).toBeNull();
    const server = await raw.get(path, { apiKey: pk });
    expect([server.status, server.body.code]).toEqual([403, 'ORIGIN_NOT_ALLOWED']);
    expect((await raw.get(path, { apiKey: org.apiKey, headers: { origin: SHOP } })).status).toBe(403);
    expect((await raw.get(path, { token: org.owner.accessToken, headers: { origin: SHOP } })).status).toBe(403);
    // And the publishable key stays off the backends' routes.
    expect((await raw.get(`/v1/routing-forms/${formId}`, fromShop())).status).toBe(403);
  });

  it('answers a preflight and the allowed origin with the CORS headers of the (P) routes', async () => {
    for (const path of [`/v1/public/routing-forms/${formId}`, `/v1/public/routing-forms/${formId}/responses`]) {
      const res = await raw.request('OPTIONS', path, {
        headers: { origin: SHOP, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
      });
      expect({ path, status: res.status }).toEqual({ path, status: 204 });
      expect(res.headers.get('access-control-allow-origin')).toBe(SHOP);
      expect(res.headers.get('access-control-allow-methods')).toBe('GET, POST');
      expect(res.headers.get('access-control-allow-headers')).toBe('authorization, content-type, idempotency-key');
      expect(res.headers.get('access-control-max-age')).toBe('600');
      expect(res.headers.get('vary')).toContain('Origin');
      expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    }
    const ok = await t.http.get(`/v1/public/routing-forms/${formId}`, fromShop());
    expect(ok.headers.get('access-control-allow-origin')).toBe(SHOP);
    expect(ok.headers.get('vary')).toContain('Origin');
    expect(ok.headers.get('access-control-expose-headers')).toBe(
      'X-Request-Id, Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset',
    );
    // The backends' routes of routing forms send no CORS header at all.
    const backend = await t.http.get(`/v1/routing-forms/${formId}`, { apiKey: org.apiKey, headers: { origin: SHOP } });
    expect(backend.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('keeps a key to its routingFormIds (404 for any other form), shown on the key and editable', async () => {
    const other = await createForm();
    const created = await t.http.post(
      '/v1/api-keys',
      { name: 'one form', kind: 'publishable', allowedOrigins: [SHOP], routingFormIds: [formId] },
      { token: org.owner.accessToken },
    );
    expect(created.status).toBe(201);
    expect(created.body.key).toMatchObject({ routingFormIds: [formId], eventTypeIds: null });
    const key = created.body.apiKey as string;
    expect((await t.http.get(`/v1/public/routing-forms/${formId}`, fromShop(key))).status).toBe(200);
    const refused = await t.http.get(`/v1/public/routing-forms/${other}`, fromShop(key));
    expect([refused.status, refused.body.code]).toEqual([404, 'NOT_FOUND']);
    expect(
      (await t.http.post(`/v1/public/routing-forms/${other}/responses`, { answers: { email: 'a@b.example' } }, fromShop(key))).status,
    ).toBe(404);
    // An unknown form anywhere is 404 as well.
    expect((await t.http.get('/v1/public/routing-forms/rtf_4f9QdY0m2kBz7Lr1Xc8VtN3a', fromShop())).status).toBe(404);

    const patched = await t.http.patch(`/v1/api-keys/${created.body.key.id}`, { routingFormIds: null }, { token: org.owner.accessToken });
    expect([patched.status, patched.body.key.routingFormIds]).toEqual([200, null]);
    expect((await t.http.get(`/v1/public/routing-forms/${other}`, fromShop(key))).status).toBe(200);
    const listed = await t.http.get('/v1/api-keys', { token: org.owner.accessToken });
    const secret = listed.body.keys.find((k: { kind: string }) => k.kind === 'secret');
    expect(secret.routingFormIds).toBeNull();

    // Another organization's form, a malformed id, a secret key: 400 naming routingFormIds.
    const stranger = await bookingOrg(t);
    const foreignForm = { name: 'Theirs', fields: FIELDS, routes: [{ when: {}, to: { message: 'x' } }], fallback: { message: 'x' } };
    const foreign = (await t.http.post('/v1/routing-forms', foreignForm, { apiKey: stranger.apiKey })).body.routingForm.id as string;
    const cases: [Record<string, unknown>, string][] = [
      [{ kind: 'publishable', allowedOrigins: [SHOP], routingFormIds: ['rtf_1'] }, 'routingFormIds'],
      [{ kind: 'publishable', allowedOrigins: [SHOP], routingFormIds: [] }, 'routingFormIds'],
      [{ routingFormIds: [formId] }, 'routingFormIds'],
      [{ kind: 'publishable', allowedOrigins: [SHOP], routingFormIds: [foreign] }, 'routingFormIds'],
    ];
    for (const [body, field] of cases) {
      const res = await t.http.post('/v1/api-keys', { name: 'x', ...body }, { token: org.owner.accessToken });
      expect({ body, status: res.status, field: res.body.details?.[0]?.field }).toEqual({ body, status: 400, field });
    }
  });

  it('makes test responses through a test key', async () => {
    const testPk = (await createApiKey(t.http, org.owner.accessToken, { kind: 'publishable', mode: 'test', allowedOrigins: [SHOP] }))
      .apiKey;
    const res = await t.http.post(
      `/v1/public/routing-forms/${formId}/responses`,
      { answers: { email: 'test@example.com' } },
      fromShop(testPk),
    );
    expect(res.status).toBe(201);
    const test = await t.http.get(`/v1/routing-forms/${formId}/responses`, { apiKey: org.testKey });
    expect(test.body.responses.map((r: { id: string }) => r.id)).toEqual([res.body.response.id]);
    const live = await t.http.get(`/v1/routing-forms/${formId}/responses`, { apiKey: org.apiKey });
    expect(live.body.responses.map((r: { id: string }) => r.id)).not.toContain(res.body.response.id);
  });

  it('lets one address submit PUBLIC_BOOKINGS_PER_VISITOR_PER_HOUR × 5 responses an hour per key, then 429 with Retry-After', async () => {
    const key = (await createApiKey(t.http, org.owner.accessToken, { kind: 'publishable', allowedOrigins: [SHOP] })).apiKey;
    const otherKey = (await createApiKey(t.http, org.owner.accessToken, { kind: 'publishable', allowedOrigins: [SHOP] })).apiKey;
    const submit = (address: string, withKey = key, answers: Record<string, unknown> = { email: 'v@example.com' }) =>
      fromAddress(
        t,
        address,
        'POST',
        `/v1/public/routing-forms/${formId}/responses`,
        { authorization: `ApiKey ${withKey}`, origin: SHOP },
        { answers },
      );
    const visitor = '198.51.100.30';
    expect((await submit(visitor)).status).toBe(201);
    t.clock.advance(20 * MINUTE);
    // A refused submission counts for nothing.
    expect((await submit(visitor, key, { size: 1 })).status).toBe(400);
    for (let i = 0; i < 9; i++) expect((await submit(visitor)).status).toBe(201);
    const limited = await submit(visitor);
    expect([limited.status, limited.body.code]).toEqual([429, 'RATE_LIMITED']);
    expect(limited.headers['retry-after']).toBe(String(40 * 60));
    expect(limited.headers['access-control-allow-origin']).toBe(SHOP);
    // Another address has a limit of its own; another key does not give the address more (contract § 22 counts the
    // address); addresses of one IPv6 /64 are one visitor.
    expect((await submit('198.51.100.31')).status).toBe(201);
    expect((await submit(visitor, otherKey)).status).toBe(429);
    const six = await Promise.all(Array.from({ length: 12 }, (_, i) => submit(`2001:db8:51::${(i + 1).toString(16)}`)));
    expect(six.filter((r) => r.status === 201)).toHaveLength(10);
    expect(six.filter((r) => r.status === 429)).toHaveLength(2);
    t.clock.advance(40 * MINUTE);
    expect((await submit(visitor)).status).toBe(201);
    t.clock.set(NOW);
  });

  it('erases the answers’ copies in routing_form.submitted events and their webhook deliveries', async () => {
    const path = '/public-routing';
    const hook = await createWebhook(t.http, { apiKey: org.apiKey }, { url: receiver.url(path), events: ['routing_form.submitted'] });
    receiver.expectSecret(path, hook.secret);
    const submit = (email: string) =>
      t.http.post(`/v1/public/routing-forms/${formId}/responses`, { answers: { email, size: 5 } }, fromShop());
    const erasedId = (await submit('Gone@Example.com')).body.response.id as string;
    const keptId = (await submit('kept@example.com')).body.response.id as string;
    await receiver.waitFor(() => receiver.at(path).length === 2, 8000, 'routing_form.submitted');
    const db = t.app.get(DataSource);
    const copies = async (responseId: string): Promise<number[]> => {
      const [events] = await db.query(`SELECT count(*)::int AS n FROM domain_events WHERE data #>> '{response,id}' = $1`, [responseId]);
      const [deliveries] = await db.query(
        `SELECT count(*)::int AS n FROM webhook_deliveries WHERE body::jsonb #>> '{data,response,id}' = $1`,
        [responseId],
      );
      return [events.n as number, deliveries.n as number];
    };
    expect(await copies(erasedId)).toEqual([1, 1]);

    const erased = await t.http.post('/v1/attendees/erase', { email: 'gone@example.com' }, { apiKey: org.apiKey });
    expect(erased.status).toBe(200);
    expect(erased.body.erased.deliveries).toBeGreaterThanOrEqual(1);
    expect(await copies(erasedId)).toEqual([0, 0]);
    expect(await copies(keptId)).toEqual([1, 1]);
    const [visitors] = await db.query(`SELECT count(*)::int AS n FROM visitor_responses WHERE response_id = $1`, [erasedId]);
    expect(visitors.n).toBe(0);
    const listed = await t.http.get(`/v1/routing-forms/${formId}/responses?limit=100`, { apiKey: org.apiKey });
    const byId = new Map(listed.body.responses.map((r: { id: string; answers: unknown[] }) => [r.id, r.answers]));
    expect(byId.get(erasedId)).toEqual([]);
    expect(byId.get(keptId)).toHaveLength(2);
    // The visitor's own audit entry keeps no address; customers are told, though no booking was erased.
    const addresses = async (responseId: string) =>
      (await db.query(`SELECT ip, user_agent FROM audit_entries WHERE resource_type = 'routing_response' AND resource_id = $1`, [
        responseId,
      ])) as { ip: string | null; user_agent: string | null }[];
    expect(await addresses(erasedId)).toEqual([{ ip: null, user_agent: null }]);
    expect((await addresses(keptId))[0].ip).not.toBeNull();
    const told = await db.query(`SELECT data FROM domain_events WHERE type = 'attendee.erased' AND data -> 'routingResponseIds' ? $1`, [
      erasedId,
    ]);
    expect(told).toEqual([{ data: { bookingIds: [], routingResponseIds: [erasedId] } }]);
  });
});
