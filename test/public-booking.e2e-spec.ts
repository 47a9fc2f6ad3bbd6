import { request as httpRequest } from 'node:http';
import { DataSource } from 'typeorm';
import { startTestApp, type TestApp } from './support/app.js';
import { bookingOrg, NOW, type BookingOrg } from './support/bookings.js';
import { createApiKey } from './support/factories.js';
import { HttpClient } from './support/http.js';
import { createEventType, starts } from './support/scheduling.js';
import { fromAddress } from './support/visitor.js';

const SHOP = 'https://shop.example.com';
const TEN = '2027-03-02T10:00:00Z';

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

/** A request from a chosen client address (127.0.0.x): the per-visitor limits count by it. */
function requestFrom(
  url: string,
  localAddress: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<RawResponse> {
  const text = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      new URL(path, url),
      { method, localAddress, headers: { ...headers, ...(text ? { 'content-type': 'application/json' } : {}) } },
      (res) => {
        let data = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (data += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: data ? JSON.parse(data) : undefined }));
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

describe('booking from the browser: publishable keys, public routes, CORS (api-rules.md § Browser booking)', () => {
  let a: TestApp;
  let b: TestApp;
  let org: BookingOrg;
  let pk: string;
  let pkId: string;
  /** No response-contract check: some answers here are refusals on routes that never expect a publishable key. */
  let raw: HttpClient;
  const fromShop = (key = pk) => ({ apiKey: key, headers: { origin: SHOP } });

  beforeAll(async () => {
    // The limit of bookings per visitor as deployed (test/support/app.ts lifts it for other suites).
    const env = { PUBLIC_BOOKINGS_PER_VISITOR_PER_HOUR: '10' };
    a = await startTestApp({ env });
    b = await startTestApp({ databaseUrl: a.databaseUrl, clock: a.clock, env: { ...env, DATA_DIR: a.config.dataDir } });
    raw = new HttpClient(a.url, { checkContract: false });
    org = await bookingOrg(a, { questions: [{ id: 'company', label: 'Company', type: 'text', required: true }] });
    const created = await createApiKey(a.http, org.owner.accessToken, {
      kind: 'publishable',
      allowedOrigins: [SHOP, 'http://localhost:5173'],
    });
    pk = created.apiKey;
    pkId = created.id;
  });
  afterAll(async () => {
    await b.app.close();
    await a.close();
  });

  describe('publishable keys', () => {
    it('creates pk_live_ and pk_test_ keys shown in full in the list, with their origins and event types', async () => {
      const res = await a.http.post(
        '/v1/api-keys',
        {
          name: 'site',
          kind: 'publishable',
          mode: 'test',
          allowedOrigins: ['https://Shop.Example.com:8443'],
          eventTypeIds: [org.eventTypeId],
        },
        { token: org.owner.accessToken },
      );
      expect(res.status).toBe(201);
      expect(res.body.apiKey).toMatch(/^pk_test_[0-9A-Za-z]{32,}$/);
      expect(res.body.key).toMatchObject({
        kind: 'publishable',
        mode: 'test',
        scopes: [],
        allowedOrigins: ['https://shop.example.com:8443'],
        eventTypeIds: [org.eventTypeId],
        rateLimitPerMinute: 600,
      });
      expect(pk).toMatch(/^pk_live_[0-9A-Za-z]{32,}$/);
      const listed = (await a.http.get('/v1/api-keys', { token: org.owner.accessToken })).body.keys as Record<string, unknown>[];
      expect(listed.find((k) => k.id === res.body.key.id)).toMatchObject({ apiKey: res.body.apiKey, kind: 'publishable' });
      const secret = listed.find((k) => k.kind === 'secret')!;
      expect(secret.apiKey).toBeUndefined();
      expect(secret).toMatchObject({ allowedOrigins: null, eventTypeIds: null });
    });

    it.each<[string, Record<string, unknown>, string]>([
      ['no origins', {}, 'allowedOrigins'],
      ['an empty list', { allowedOrigins: [] }, 'allowedOrigins'],
      ['an origin with a path', { allowedOrigins: ['https://shop.example.com/book'] }, 'allowedOrigins'],
      ['a trailing slash', { allowedOrigins: ['https://shop.example.com/'] }, 'allowedOrigins'],
      ['a wildcard', { allowedOrigins: ['https://*.example.com'] }, 'allowedOrigins'],
      ['*', { allowedOrigins: ['*'] }, 'allowedOrigins'],
      ['null', { allowedOrigins: ['null'] }, 'allowedOrigins'],
      ['plain http on a public host', { allowedOrigins: ['http://shop.example.com'] }, 'allowedOrigins'],
      ['21 origins', { allowedOrigins: Array.from({ length: 21 }, (_, i) => `https://s${i}.example.com`) }, 'allowedOrigins'],
      ['one origin twice, by case', { allowedOrigins: ['https://a.example.com', 'https://A.example.com'] }, 'allowedOrigins'],
      ['scopes', { allowedOrigins: [SHOP], scopes: ['bookings:read'] }, 'scopes'],
      ['a malformed event type id', { allowedOrigins: [SHOP], eventTypeIds: ['evt_1'] }, 'eventTypeIds'],
      ['a rate limit of 0', { allowedOrigins: [SHOP], rateLimitPerMinute: 0 }, 'rateLimitPerMinute'],
      ['an unknown kind', { kind: 'public', allowedOrigins: [SHOP] }, 'kind'],
    ])('refuses a publishable key with %s (400 naming the field)', async (_name, extra, field) => {
      const res = await a.http.post('/v1/api-keys', { name: 'bad', kind: 'publishable', ...extra }, { token: org.owner.accessToken });
      expect(res.status).toBe(400);
      expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
    });

    it('refuses another organization’s event types, and origins on a secret key', async () => {
      const other = await bookingOrg(a);
      const foreign = await a.http.post(
        '/v1/api-keys',
        { name: 'x', kind: 'publishable', allowedOrigins: [SHOP], eventTypeIds: [other.eventTypeId] },
        { token: org.owner.accessToken },
      );
      expect(foreign.status).toBe(400);
      expect(foreign.body.details[0].field).toBe('eventTypeIds');
      expect((await a.http.post('/v1/api-keys', { name: 'x', allowedOrigins: [SHOP] }, { token: org.owner.accessToken })).status).toBe(400);
      const secretId = (await createApiKey(a.http, org.owner.accessToken)).id;
      const patched = await a.http.patch(`/v1/api-keys/${secretId}`, { allowedOrigins: [SHOP] }, { token: org.owner.accessToken });
      expect(patched.status).toBe(400);
      expect((await a.http.patch(`/v1/api-keys/${secretId}`, { name: 'renamed' }, { token: org.owner.accessToken })).body.key.name).toBe(
        'renamed',
      );
      // Another organization's key is not found.
      expect((await a.http.patch(`/v1/api-keys/${pkId}`, { name: 'mine' }, { token: other.owner.accessToken })).status).toBe(404);
    });

    it('PATCH changes the origins and event types at once on every instance', async () => {
      const key = await createApiKey(a.http, org.owner.accessToken, { kind: 'publishable', allowedOrigins: [SHOP] });
      expect((await b.http.get('/v1/public/event-types', fromShop(key.apiKey))).status).toBe(200);
      const patched = await a.http.patch(
        `/v1/api-keys/${key.id}`,
        { allowedOrigins: ['https://other.example.com'], eventTypeIds: [org.eventTypeId] },
        { token: org.owner.accessToken },
      );
      expect(patched.status).toBe(200);
      expect(patched.body.key).toMatchObject({ allowedOrigins: ['https://other.example.com'], eventTypeIds: [org.eventTypeId] });
      const refused = await b.http.get('/v1/public/event-types', fromShop(key.apiKey));
      expect(refused.status).toBe(403);
      expect(refused.body.code).toBe('ORIGIN_NOT_ALLOWED');
      const reset = await a.http.patch(`/v1/api-keys/${key.id}`, { eventTypeIds: null }, { token: org.owner.accessToken });
      expect(reset.body.key.eventTypeIds).toBeNull();
    });

    it('is refused with 403 FORBIDDEN on every route but the public booking routes', async () => {
      const doc = (await a.http.get('/docs-json')).body as { paths: Record<string, Record<string, { tags?: string[] }>> };
      const refused: string[] = [];
      for (const [path, operations] of Object.entries(doc.paths)) {
        for (const [verb, operation] of Object.entries(operations)) {
          if (operation.tags?.includes('public')) continue;
          const concrete = path.replace(/\{(\w+)\}/g, (_m, name: string) => (name === 'file' ? 'x.ics' : 'key_4f9QdY0m2kBz7Lr1Xc8VtN3a'));
          const res = await raw.request(verb.toUpperCase(), concrete, {
            ...fromShop(),
            body: ['get', 'delete'].includes(verb) ? undefined : {},
          });
          if (res.status !== 403 || res.body?.code !== 'FORBIDDEN')
            refused.push(`${verb.toUpperCase()} ${path}: ${res.status} ${res.body?.code}`);
        }
      }
      expect(refused).toEqual([]);
      expect(Object.keys(doc.paths).length).toBeGreaterThan(30);
    });

    it('needs an Origin the key lists: none, null, another or a lookalike → 403 ORIGIN_NOT_ALLOWED', async () => {
      for (const origin of [undefined, 'null', 'https://evil.example.com', `${SHOP}.evil.com`, `${SHOP}/`, 'http://shop.example.com']) {
        const res = await a.http.get('/v1/public/event-types', { apiKey: pk, headers: origin === undefined ? {} : { origin } });
        expect({ origin, status: res.status, code: res.body.code }).toEqual({ origin, status: 403, code: 'ORIGIN_NOT_ALLOWED' });
      }
      // A page on the API's own origin: a browser sends no Origin on a same-origin GET, but Sec-Fetch-Site.
      const own = `http://127.0.0.1:${new URL(a.url).port}`;
      const local = await createApiKey(a.http, org.owner.accessToken, { kind: 'publishable', allowedOrigins: [own] });
      expect(
        (await a.http.get('/v1/public/event-types', { apiKey: local.apiKey, headers: { 'sec-fetch-site': 'same-origin' } })).status,
      ).toBe(200);
      for (const site of ['cross-site', 'same-site', 'none']) {
        expect((await a.http.get('/v1/public/event-types', { apiKey: local.apiKey, headers: { 'sec-fetch-site': site } })).status).toBe(
          403,
        );
      }
      expect((await a.http.get('/v1/public/event-types', { apiKey: pk, headers: { 'sec-fetch-site': 'same-origin' } })).status).toBe(403);
      // A secret key or a session on a public route: backends use the other routes.
      expect((await a.http.get('/v1/public/event-types', { apiKey: org.apiKey, headers: { origin: SHOP } })).status).toBe(403);
      expect((await a.http.get('/v1/public/event-types', { token: org.owner.accessToken, headers: { origin: SHOP } })).status).toBe(403);
      expect((await a.http.get('/v1/public/event-types', { headers: { origin: SHOP } })).status).toBe(401);
      expect((await a.http.get('/v1/public/event-types', { apiKey: 'pk_live_nope', headers: { origin: SHOP } })).status).toBe(401);
    });

    it('is refused at once on every instance once revoked (401 KEY_REVOKED)', async () => {
      const key = await createApiKey(a.http, org.owner.accessToken, { kind: 'publishable', allowedOrigins: [SHOP] });
      expect((await b.http.get('/v1/public/event-types', fromShop(key.apiKey))).status).toBe(200);
      expect((await a.http.delete(`/v1/api-keys/${key.id}`, { token: org.owner.accessToken })).status).toBe(204);
      const res = await b.http.get('/v1/public/event-types', fromShop(key.apiKey));
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('KEY_REVOKED');
    });

    it('counts its rate limit per key and client address together', async () => {
      const key = await createApiKey(a.http, org.owner.accessToken, { kind: 'publishable', allowedOrigins: [SHOP], rateLimitPerMinute: 3 });
      const headers = { authorization: `ApiKey ${key.apiKey}`, origin: SHOP };
      for (let i = 0; i < 3; i++)
        expect((await requestFrom(a.url, '127.0.0.1', 'GET', '/v1/public/event-types', headers)).status).toBe(200);
      const limited = await requestFrom(a.url, '127.0.0.1', 'GET', '/v1/public/event-types', headers);
      expect(limited.status).toBe(429);
      expect(limited.body.code).toBe('RATE_LIMITED');
      expect(limited.headers['access-control-allow-origin']).toBe(SHOP);
      expect((await requestFrom(a.url, '127.0.0.2', 'GET', '/v1/public/event-types', headers)).status).toBe(200);
    });
  });

  describe('public routes', () => {
    it('shows the event types the key may book, as an attendee sees them: no emails, no internal fields', async () => {
      const res = await a.http.get('/v1/public/event-types', fromShop());
      expect(res.status).toBe(200);
      const mine = res.body.eventTypes.find((e: { id: string }) => e.id === org.eventTypeId);
      expect(Object.keys(mine).sort()).toEqual(
        [
          'id',
          'title',
          'slug',
          'description',
          'durationMinutes',
          'locationType',
          'schedulingType',
          'requiresConfirmation',
          'minimumNoticeHours',
          'bookingWindowDays',
          'holdMinutes',
          'questions',
          'hosts',
          'seatsPerSlot',
          'recurrence',
          'attendeeCancellation',
          'attendeeRescheduling',
        ].sort(),
      );
      expect([mine.seatsPerSlot, mine.recurrence]).toEqual([null, null]);
      expect(mine.hosts).toEqual([{ name: expect.any(String) }]);
      expect(res.text).not.toContain(org.owner.userId);
      expect(res.text).not.toContain(org.owner.email);
      expect(res.body.totalCount).toBe(res.body.eventTypes.length);
      expect((await a.http.get(`/v1/public/event-types/${org.eventTypeId}`, fromShop())).body.eventType).toEqual(mine);
    });

    it('answers 404 for an event type the key may not book: not listed, deleted, another organization’s', async () => {
      const other = await createEventType(a, { token: org.owner.accessToken }, { durationMinutes: 30 });
      const limited = await createApiKey(a.http, org.owner.accessToken, {
        kind: 'publishable',
        allowedOrigins: [SHOP],
        eventTypeIds: [org.eventTypeId],
      });
      expect(
        (await a.http.get('/v1/public/event-types', fromShop(limited.apiKey))).body.eventTypes.map((e: { id: string }) => e.id),
      ).toEqual([org.eventTypeId]);
      for (const path of [
        `/v1/public/event-types/${other}`,
        `/v1/public/availability?eventTypeId=${other}&start=2027-03-02&end=2027-03-02`,
      ]) {
        expect((await a.http.get(path, fromShop(limited.apiKey))).status).toBe(404);
      }
      const held = await a.http.post('/v1/public/holds', { eventTypeId: other, startTime: TEN, timezone: 'UTC' }, fromShop(limited.apiKey));
      expect(held.status).toBe(404);
      await a.http.delete(`/v1/event-types/${other}`, { token: org.owner.accessToken });
      expect((await a.http.get(`/v1/public/event-types/${other}`, fromShop())).status).toBe(404);
      const foreign = await bookingOrg(a);
      expect((await a.http.get(`/v1/public/event-types/${foreign.eventTypeId}`, fromShop())).status).toBe(404);
      expect(
        (await a.http.get(`/v1/public/availability?eventTypeId=${foreign.eventTypeId}&start=2027-03-02&end=2027-03-02`, fromShop())).status,
      ).toBe(404);
      a.clock.set(NOW);
    });

    it('lists the same slots as GET /availability, without host ids', async () => {
      const res = await a.http.get(
        `/v1/public/availability?eventTypeId=${org.eventTypeId}&start=2027-03-03&end=2027-03-03&timezone=Europe/Berlin`,
        fromShop(),
      );
      expect(res.status).toBe(200);
      expect(res.body.timezone).toBe('Europe/Berlin');
      expect(res.body.slots.every((s: Record<string, unknown>) => Object.keys(s).sort().join() === 'end,start')).toBe(true);
      expect(res.text).not.toContain('usr_');
      const secret = await starts(a, { apiKey: org.apiKey }, org.eventTypeId, '2027-03-03', '2027-03-03', 'Europe/Berlin');
      expect(res.body.slots.map((s: { start: string }) => s.start)).toEqual(secret);
    });

    it('holds, books through the hold with its token, and reads the booking with the attendee’s token', async () => {
      const held = await b.http.post('/v1/public/holds', { eventTypeId: org.eventTypeId, startTime: TEN, timezone: 'UTC' }, fromShop());
      expect(held.status).toBe(201);
      expect(held.body.holdToken).toMatch(/^[0-9A-Za-z]{22,}$/);
      const { hold, holdToken } = held.body;
      const body = {
        eventTypeId: org.eventTypeId,
        startTime: TEN,
        timezone: 'Europe/Berlin',
        attendee: { email: 'visitor@example.com', firstName: 'Vi' },
        answers: { company: 'Acme' },
        holdId: hold.id,
      };
      // Someone else cannot book the held time, and the hold's own booking needs its token.
      const other = await a.http.post(
        '/v1/public/bookings',
        { ...body, holdId: undefined, attendee: { email: 'x@example.com' } },
        fromShop(),
      );
      expect(other.status).toBe(409);
      expect((await a.http.post('/v1/public/bookings', body, fromShop())).status).toBe(401);
      expect((await a.http.post('/v1/public/bookings', { ...body, holdToken: 'wrong' }, fromShop())).status).toBe(401);
      const booked = await a.http.post(
        '/v1/public/bookings',
        { ...body, holdToken },
        { ...fromShop(), headers: { origin: SHOP, 'idempotency-key': 'page-1' } },
      );
      expect(booked.status).toBe(201);
      expect(booked.body).toEqual({
        booking: {
          id: expect.stringMatching(/^bkg_/),
          eventTypeId: org.eventTypeId,
          startsAt: '2027-03-02T10:00:00.000Z',
          endsAt: '2027-03-02T10:30:00.000Z',
          status: 'confirmed',
          confirmationToken: expect.stringMatching(/^[0-9A-Za-z]{32,}$/),
          attendee: { email: 'visitor@example.com', firstName: 'Vi', lastName: null, phone: null, locale: null },
          timezone: 'Europe/Berlin',
          locationType: null,
          location: null,
          meetingUrl: null,
          answers: [{ id: 'company', label: 'Company', type: 'text', value: 'Acme' }],
          livemode: true,
          attendeeCanCancelUntil: '2027-03-02T10:00:00.000Z',
          attendeeCanRescheduleUntil: '2027-03-02T10:00:00.000Z',
        },
      });
      const replay = await b.http.post(
        '/v1/public/bookings',
        { ...body, holdToken },
        { ...fromShop(), headers: { origin: SHOP, 'idempotency-key': 'page-1' } },
      );
      expect(replay.status).toBe(201);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.body).toEqual(booked.body);
      expect(replay.text).toBe(booked.text);
      // The stored response is sealed: neither the confirmation token nor the attendee is readable at rest.
      const stored: { response_body: unknown }[] = await a.app
        .get(DataSource)
        .query(`SELECT response_body FROM idempotency_keys WHERE key = 'page-1'`);
      expect(stored).toHaveLength(1);
      const atRest = JSON.stringify(stored[0].response_body);
      expect(atRest).toMatch(/^\{"sealed":"k1\./);
      for (const clear of [booked.body.booking.confirmationToken, 'visitor@example.com', 'Acme']) expect(atRest).not.toContain(clear);

      const { id, confirmationToken } = booked.body.booking;
      const mine = await a.http.get(`/v1/public/bookings/${id}`, { headers: { authorization: `Token ${confirmationToken}` } });
      expect(mine.status).toBe(200);
      const { confirmationToken: _token, ...withoutToken } = booked.body.booking;
      expect(mine.body).toEqual({ booking: withoutToken });
      for (const authorization of [`Token ${confirmationToken}x`, 'Token ', `Bearer ${confirmationToken}`, '']) {
        expect((await a.http.get(`/v1/public/bookings/${id}`, { headers: authorization ? { authorization } : {} })).status).toBe(401);
      }
      expect(
        (await a.http.get('/v1/public/bookings/bkg_4f9QdY0m2kBz7Lr1Xc8VtN3a', { headers: { authorization: `Token ${confirmationToken}` } }))
          .status,
      ).toBe(401);
      // The host sees it like any other booking.
      const detail = (await a.http.get(`/v1/bookings/${id}`, { apiKey: org.apiKey })).body.booking;
      expect(detail.answers).toEqual(booked.body.booking.answers);
    });

    it('releases a hold with its token only', async () => {
      const held = await a.http.post(
        '/v1/public/holds',
        { eventTypeId: org.eventTypeId, startTime: '2027-03-02T11:00:00Z', timezone: 'UTC' },
        fromShop(),
      );
      const path = `/v1/public/holds/${held.body.hold.id}/release`;
      expect((await a.http.post(path, { holdToken: 'wrong' }, fromShop())).status).toBe(401);
      expect((await a.http.post(path, {}, fromShop())).status).toBe(400);
      expect((await b.http.post(path, { holdToken: held.body.holdToken }, fromShop())).status).toBe(204);
      expect((await b.http.post(path, { holdToken: held.body.holdToken }, fromShop())).status).toBe(404);
      expect((await a.http.post('/v1/public/holds/hld_x/release', { holdToken: 'x' }, fromShop())).status).toBe(400);
    });

    it('keeps at most 5 live holds per client address and key, even when asked at once over two instances', async () => {
      const key = await createApiKey(a.http, org.owner.accessToken, { kind: 'publishable', allowedOrigins: [SHOP] });
      const headers = { authorization: `ApiKey ${key.apiKey}`, origin: SHOP };
      // Seats of one start: a visitor's fair share of a host's held starts (2) never applies, only the 5 holds.
      const seated = await createEventType(a, { token: org.owner.accessToken }, { durationMinutes: 30, seatsPerSlot: 20 });
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          requestFrom((i % 2 ? b : a).url, '127.0.0.1', 'POST', '/v1/public/holds', headers, {
            eventTypeId: seated,
            startTime: '2027-03-04T09:00:00Z',
            timezone: 'UTC',
          }),
        ),
      );
      expect(results.filter((r) => r.status === 201)).toHaveLength(5);
      const refused = results.filter((r) => r.status !== 201);
      expect(refused.every((r) => r.status === 429 && r.body.code === 'HOLD_LIMIT_REACHED')).toBe(true);
      const elsewhere = await requestFrom(a.url, '127.0.0.2', 'POST', '/v1/public/holds', headers, {
        eventTypeId: org.eventTypeId,
        startTime: '2027-03-05T09:00:00Z',
        timezone: 'UTC',
      });
      expect(elsewhere.status).toBe(201);
      // Expired holds no longer count.
      a.clock.advance(10 * 60_000);
      const later = await requestFrom(a.url, '127.0.0.1', 'POST', '/v1/public/holds', headers, {
        eventTypeId: org.eventTypeId,
        startTime: '2027-03-05T10:00:00Z',
        timezone: 'UTC',
      });
      expect(later.status).toBe(201);
      a.clock.set(NOW);
    });

    it('keeps the modes apart: a test key cannot release or book through a live key’s hold', async () => {
      const testKey = await createApiKey(a.http, org.owner.accessToken, { kind: 'publishable', mode: 'test', allowedOrigins: [SHOP] });
      const startTime = '2027-03-03T14:00:00Z';
      const held = await a.http.post('/v1/public/holds', { eventTypeId: org.eventTypeId, startTime, timezone: 'UTC' }, fromShop());
      const { hold, holdToken } = held.body;
      const release = await a.http.post(`/v1/public/holds/${hold.id}/release`, { holdToken }, fromShop(testKey.apiKey));
      expect(release.status).toBe(404);
      // Booked with the test key, the live hold is not found there and is ignored: a test booking, the live hold intact.
      const booked = await a.http.post(
        '/v1/public/bookings',
        {
          eventTypeId: org.eventTypeId,
          startTime,
          timezone: 'UTC',
          attendee: { email: 'm@example.com' },
          answers: { company: 'M' },
          holdId: hold.id,
          holdToken,
        },
        fromShop(testKey.apiKey),
      );
      expect(booked.status).toBe(201);
      expect(booked.body.booking.livemode).toBe(false);
      expect((await a.http.get('/v1/holds', { apiKey: org.apiKey })).body.holds.map((h: { id: string }) => h.id)).toContain(hold.id);
    });

    it('makes test bookings and holds with a test key', async () => {
      const key = await createApiKey(a.http, org.owner.accessToken, { kind: 'publishable', mode: 'test', allowedOrigins: [SHOP] });
      const booked = await a.http.post(
        '/v1/public/bookings',
        {
          eventTypeId: org.eventTypeId,
          startTime: '2027-03-02T13:00:00Z',
          timezone: 'UTC',
          attendee: { email: 't@example.com' },
          answers: { company: 'T' },
        },
        fromShop(key.apiKey),
      );
      expect(booked.status).toBe(201);
      expect(booked.body.booking.livemode).toBe(false);
      expect((await a.http.get(`/v1/bookings/${booked.body.booking.id}`, { apiKey: org.testKey })).status).toBe(200);
      expect((await a.http.get(`/v1/bookings/${booked.body.booking.id}`, { apiKey: org.apiKey })).status).toBe(404);
    });

    it('refuses hostile and malformed input with the documented codes, never a 500', async () => {
      const cases: [string, string, unknown, number][] = [
        ['POST', '/v1/public/holds', { eventTypeId: org.eventTypeId, startTime: TEN, timezone: 'UTC', ttlSeconds: 60 }, 400],
        ['POST', '/v1/public/holds', { eventTypeId: org.eventTypeId, startTime: 'soon', timezone: 'UTC' }, 400],
        ['POST', '/v1/public/holds', { eventTypeId: 'evt_nope', startTime: TEN, timezone: 'UTC' }, 400],
        ['POST', '/v1/public/bookings', { eventTypeId: org.eventTypeId, startTime: TEN, timezone: 'UTC', attendee: {} }, 400],
        [
          'POST',
          '/v1/public/bookings',
          { eventTypeId: org.eventTypeId, startTime: '2027-03-02T15:00:00Z', timezone: 'UTC', attendee: { email: 'a@example.com' } },
          400,
        ],
        [
          'POST',
          '/v1/public/bookings',
          { eventTypeId: org.eventTypeId, startTime: TEN, timezone: 'UTC', attendee: { email: 'a@example.com' }, metadata: { a: 'b' } },
          400,
        ],
        ['GET', '/v1/public/availability?eventTypeId=' + org.eventTypeId + '&start=2027-03-02', undefined, 400],
        ['GET', '/v1/public/event-types/evt_x', undefined, 400],
      ];
      for (const [method, path, body, status] of cases) {
        const res = await a.http.request(method, path, { ...fromShop(), body });
        expect({ path, body, status: res.status }).toEqual({ path, body, status });
        expect(res.headers.get('access-control-allow-origin')).toBe(SHOP);
      }
    });
  });

  describe('attendee views (one mapper for the attendee’s audience)', () => {
    it('no answer a publishable key or an attendee’s token reaches shows the backend’s notes or metadata, or another attendee', async () => {
      const seated = await bookingOrg(a, { seatsPerSlot: 3 });
      const key = (await createApiKey(a.http, seated.owner.accessToken, { kind: 'publishable', allowedOrigins: [SHOP] })).apiKey;
      const NOTE = 'backend-note-7c1e';
      const META = 'backend-meta-7c1e';
      const OTHER = 'other-seat@example.com';
      /** A booking the customer's backend makes with its secret key, carrying its own notes and metadata. */
      const backend = async (startTime: string, email: string) => {
        const res = await a.http.post(
          '/v1/bookings',
          { eventTypeId: seated.eventTypeId, startTime, timezone: 'UTC', attendee: { email }, notes: NOTE, metadata: { crm: META } },
          { apiKey: seated.apiKey },
        );
        expect(res.status).toBe(201);
        expect(res.text).toContain(META);
        return { id: res.body.booking.id as string, token: res.body.booking.confirmationToken as string };
      };
      const mine = await backend(TEN, 'me@example.com');
      await backend(TEN, OTHER);
      const toCancel = await backend('2027-03-02T12:00:00Z', 'me@example.com');
      const toMove = await backend('2027-03-02T13:00:00Z', 'me@example.com');

      const answers: { route: string; status: number; text: string }[] = [];
      const seen = async (route: string, response: Promise<{ status: number; text: string }>) => {
        const { status, text } = await response;
        answers.push({ route, status, text });
      };
      const byToken = (token: string) => ({ headers: { authorization: `Token ${token}` } });
      await seen('GET /public/event-types', a.http.get('/v1/public/event-types', fromShop(key)));
      await seen('GET /public/event-types/:id', a.http.get(`/v1/public/event-types/${seated.eventTypeId}`, fromShop(key)));
      await seen(
        'GET /public/availability',
        a.http.get(`/v1/public/availability?eventTypeId=${seated.eventTypeId}&start=2027-03-02&end=2027-03-02`, fromShop(key)),
      );
      const held = await a.http.post(
        '/v1/public/holds',
        { eventTypeId: seated.eventTypeId, startTime: TEN, timezone: 'UTC' },
        fromShop(key),
      );
      await seen('POST /public/holds', Promise.resolve(held));
      // The third seat of the start the backend's two bookings share, from the page.
      await seen(
        'POST /public/bookings',
        a.http.post(
          '/v1/public/bookings',
          {
            eventTypeId: seated.eventTypeId,
            startTime: TEN,
            timezone: 'UTC',
            attendee: { email: 'page@example.com' },
            notes: 'the visitor’s own words',
            holdId: held.body.hold.id,
            holdToken: held.body.holdToken,
          },
          fromShop(key),
        ),
      );
      await seen('GET /public/bookings/:id', a.http.get(`/v1/public/bookings/${mine.id}`, byToken(mine.token)));
      await seen('POST /bookings/:id/cancel (token)', a.http.post(`/v1/bookings/${toCancel.id}/cancel`, { token: toCancel.token }));
      const moved = await a.http.post(`/v1/bookings/${toMove.id}/reschedule`, {
        token: toMove.token,
        newStartTime: '2027-03-02T14:00:00Z',
      });
      await seen('POST /bookings/:id/reschedule (token)', Promise.resolve(moved));
      await seen(
        'GET /public/bookings/:id (rescheduled)',
        a.http.get(`/v1/public/bookings/${moved.body.booking.id}`, byToken(moved.body.booking.confirmationToken)),
      );
      a.clock.set('2027-03-02T10:05:00Z');
      await seen(
        'POST /bookings/:id/no-show (token)',
        a.http.post(`/v1/bookings/${mine.id}/no-show`, { party: 'host', token: mine.token }),
      );
      a.clock.set(NOW);

      const leaks = answers.flatMap(({ route, status, text }) => {
        const found = [NOTE, META, '"metadata"', '"notes"', OTHER].filter((secret) => text.includes(secret));
        // Section 8's reschedule answer names its host; no other attendee answer has a host id.
        if (!route.includes('reschedule') && text.includes(seated.owner.userId)) found.push('host id');
        return status >= 200 && status < 300 ? found.map((what) => `${route}: ${what}`) : [`${route}: ${status} ${text}`];
      });
      // The attendee's own address appears only in the answers about its own booking.
      const own = answers.filter(({ text }) => text.includes('me@example.com'));
      expect(own.map(({ route }) => route)).toEqual([
        'GET /public/bookings/:id',
        'GET /public/bookings/:id (rescheduled)',
        'POST /bookings/:id/no-show (token)',
      ]);
      expect(leaks).toEqual([]);
      // The host's credentials still get the host's view, notes and metadata included.
      const host = await a.http.get(`/v1/bookings/${mine.id}`, { apiKey: seated.apiKey });
      expect(host.body.booking).toMatchObject({ notes: NOTE, metadata: { crm: META }, noShow: { host: true } });
    });
  });

  describe('bookings per visitor (PUBLIC_BOOKINGS_PER_VISITOR_PER_HOUR, 10 here)', () => {
    const MINUTE = 60_000;
    /** A booking from a page, from one client address (`fromAddress`: the limit counts per key and address). */
    const bookFrom = (t: TestApp, address: string, key: string, eventTypeId: string, startTime: string, idempotencyKey?: string) =>
      fromAddress(
        t,
        address,
        'POST',
        '/v1/public/bookings',
        { authorization: `ApiKey ${key}`, origin: SHOP, ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}) },
        { eventTypeId, startTime, timezone: 'UTC', attendee: { email: `v${startTime.replace(/\D/g, '')}@example.com` } },
      );
    const halfHours = (day: string, count: number) =>
      Array.from(
        { length: count },
        (_, i) => `2027-03-${day}T${String(9 + Math.floor(i / 2)).padStart(2, '0')}:${i % 2 ? '30' : '00'}:00Z`,
      );

    it('lets one address book 10 times an hour per key, then 429 RATE_LIMITED with Retry-After until one leaves the hour', async () => {
      const host = await bookingOrg(a);
      const key = (await createApiKey(a.http, host.owner.accessToken, { kind: 'publishable', allowedOrigins: [SHOP] })).apiKey;
      const otherKey = (await createApiKey(a.http, host.owner.accessToken, { kind: 'publishable', allowedOrigins: [SHOP] })).apiKey;
      const times = halfHours('03', 16);
      const visitor = '198.51.100.20';
      expect((await bookFrom(a, visitor, key, host.eventTypeId, times[0])).status).toBe(201);
      a.clock.advance(20 * MINUTE);
      for (const [i, startTime] of times.slice(1, 10).entries()) {
        expect((await bookFrom(i % 2 ? a : b, visitor, key, host.eventTypeId, startTime)).status).toBe(201);
      }
      const limited = await bookFrom(b, visitor, key, host.eventTypeId, times[10], 'page-11');
      expect([limited.status, limited.body.code]).toEqual([429, 'RATE_LIMITED']);
      // The first booking leaves the hour 40 minutes from now.
      expect(limited.headers['retry-after']).toBe(String(40 * 60));
      expect(limited.headers['access-control-allow-origin']).toBe(SHOP);
      // Another address, another key: limits of their own.
      expect((await bookFrom(a, '198.51.100.21', key, host.eventTypeId, times[11])).status).toBe(201);
      expect((await bookFrom(a, visitor, otherKey, host.eventTypeId, times[12])).status).toBe(201);

      a.clock.advance(40 * MINUTE - 1000);
      const early = await bookFrom(a, visitor, key, host.eventTypeId, times[10], 'page-11');
      expect([early.status, early.headers['retry-after']]).toEqual([429, '1']);
      a.clock.advance(1000);
      // The 429 was not kept under the Idempotency-Key: the same request now books.
      const later = await bookFrom(b, visitor, key, host.eventTypeId, times[10], 'page-11');
      expect(later.status).toBe(201);
      expect(later.headers['idempotent-replayed']).toBeUndefined();
      const replay = await bookFrom(a, visitor, key, host.eventTypeId, times[10], 'page-11');
      expect([replay.status, replay.headers['idempotent-replayed']]).toEqual([201, 'true']);
      // The other nine were made 20 minutes after the first: they leave the hour 20 minutes from now.
      const full = await bookFrom(a, visitor, key, host.eventTypeId, times[13]);
      expect([full.status, full.headers['retry-after']]).toEqual([429, String(20 * 60)]);
      a.clock.set(NOW);
    });

    it('never lets an 11th through when one visitor books 14 times at once over two instances; a refused time counts nothing', async () => {
      const host = await bookingOrg(a);
      const key = (await createApiKey(a.http, host.owner.accessToken, { kind: 'publishable', allowedOrigins: [SHOP] })).apiKey;
      const visitor = '2001:db8:77::1';
      // A booking refused for its time (before the working day) is no booking: it does not count.
      expect((await bookFrom(a, visitor, key, host.eventTypeId, '2027-03-04T03:00:00Z')).status).toBe(409);
      const results = await Promise.all(
        halfHours('04', 14).map((startTime, i) =>
          // Addresses of one /64: one visitor.
          bookFrom(i % 2 ? b : a, `2001:db8:77::${(i + 2).toString(16)}`, key, host.eventTypeId, startTime),
        ),
      );
      expect(results.filter((r) => r.status === 201)).toHaveLength(10);
      expect(results.filter((r) => r.status !== 201).map((r) => [r.status, r.body.code])).toEqual(
        Array.from({ length: 4 }, () => [429, 'RATE_LIMITED']),
      );
      expect(results.filter((r) => r.status === 429).every((r) => Number(r.headers['retry-after']) === 3600)).toBe(true);
    });
  });

  describe('CORS', () => {
    const preflight = (path: string, origin: string) =>
      raw.request('OPTIONS', path, {
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
      });

    it('answers a preflight on the public and attendee-token routes with 204 and the documented headers', async () => {
      for (const path of [
        '/v1/public/holds',
        '/v1/public/bookings',
        '/v1/public/event-types',
        '/v1/bookings/bkg_4f9QdY0m2kBz7Lr1Xc8VtN3a/cancel',
      ]) {
        const res = await preflight(path, SHOP);
        expect({ path, status: res.status }).toEqual({ path, status: 204 });
        expect(res.headers.get('access-control-allow-origin')).toBe(SHOP);
        expect(res.headers.get('access-control-allow-methods')).toBe('GET, POST');
        expect(res.headers.get('access-control-allow-headers')).toBe('authorization, content-type, idempotency-key');
        expect(res.headers.get('access-control-max-age')).toBe('600');
        expect(res.headers.get('vary')).toContain('Origin');
        expect(res.headers.get('access-control-allow-credentials')).toBeNull();
      }
    });

    it('answers an allowed origin, errors included, and never a refused one', async () => {
      const ok = await a.http.get('/v1/public/event-types', fromShop());
      expect(ok.headers.get('access-control-allow-origin')).toBe(SHOP);
      expect(ok.headers.get('vary')).toContain('Origin');
      expect(ok.headers.get('access-control-expose-headers')).toBe(
        'X-Request-Id, Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset',
      );
      expect(ok.headers.get('access-control-allow-credentials')).toBeNull();
      const conflict = await a.http.post(
        '/v1/public/holds',
        { eventTypeId: org.eventTypeId, startTime: '2027-03-02T03:00:00Z', timezone: 'UTC' },
        fromShop(),
      );
      expect(conflict.status).toBe(409);
      expect(conflict.headers.get('access-control-allow-origin')).toBe(SHOP);
      const refused = await a.http.get('/v1/public/event-types', { apiKey: pk, headers: { origin: 'https://evil.example.com' } });
      expect(refused.status).toBe(403);
      expect(refused.headers.get('access-control-allow-origin')).toBeNull();
      const revokedKey = await a.http.get('/v1/public/event-types', { apiKey: 'pk_live_' + 'x'.repeat(40), headers: { origin: SHOP } });
      expect(revokedKey.status).toBe(401);
      expect(revokedKey.headers.get('access-control-allow-origin')).toBeNull();
    });

    it('lets any origin call the attendee-token routes: they carry their own credential', async () => {
      const res = await a.http.post(
        '/v1/bookings/bkg_4f9QdY0m2kBz7Lr1Xc8VtN3a/cancel',
        { token: 'x' },
        { headers: { origin: 'https://anywhere.example.org' } },
      );
      expect(res.status).toBe(404);
      expect(res.headers.get('access-control-allow-origin')).toBe('https://anywhere.example.org');
      const read = await a.http.get('/v1/public/bookings/bkg_4f9QdY0m2kBz7Lr1Xc8VtN3a', {
        headers: { origin: 'https://anywhere.example.org', authorization: 'Token x' },
      });
      expect(read.status).toBe(401);
      expect(read.headers.get('access-control-allow-origin')).toBe('https://anywhere.example.org');
    });

    it('sends no CORS header on any other route, and OPTIONS elsewhere stays 405', async () => {
      const doc = (await a.http.get('/docs-json')).body as {
        paths: Record<string, Record<string, { tags?: string[]; operationId: string }>>;
      };
      const leaking: string[] = [];
      const browserRoutes = new Set(['cancelBooking', 'rescheduleBooking', 'getPublicBooking']);
      for (const [path, operations] of Object.entries(doc.paths)) {
        for (const [verb, operation] of Object.entries(operations)) {
          if (operation.tags?.includes('public') || browserRoutes.has(operation.operationId)) continue;
          const concrete = path.replace(/\{(\w+)\}/g, (_m, name: string) => (name === 'file' ? 'x.ics' : 'key_4f9QdY0m2kBz7Lr1Xc8VtN3a'));
          const res = await raw.request(verb.toUpperCase(), concrete, {
            token: org.owner.accessToken,
            headers: { origin: SHOP },
            body: ['get', 'delete'].includes(verb) ? undefined : {},
          });
          const cors = [...res.headers.keys()].filter((name) => name.startsWith('access-control-'));
          if (cors.length > 0) leaking.push(`${verb.toUpperCase()} ${path}: ${cors.join(', ')}`);
          const options = await preflight(concrete, SHOP);
          if (options.status !== 405 || [...options.headers.keys()].some((name) => name.startsWith('access-control-'))) {
            leaking.push(`OPTIONS ${path}: ${options.status}`);
          }
        }
      }
      expect(leaking).toEqual([]);
      expect((await raw.request('OPTIONS', '/v1/nowhere', { headers: { origin: SHOP } })).status).toBe(404);
    });
  });
});
