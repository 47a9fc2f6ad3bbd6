import { startTestApp, type TestApp } from './support/app.js';
import { bookingOrg, NOW, type BookingOrg } from './support/bookings.js';
import { createApiKey } from './support/factories.js';
import { HttpClient } from './support/http.js';
import { createEventType } from './support/scheduling.js';

const SHOP = 'https://shop.example.com';

/**
 * GET /availability's first read (the cache's fingerprint and the event type) rides in the statement that looks up the
 * API key (KeyCompanions; docs/contributing/performance.md § Availability over HTTP). It is read for the key's
 * organization before the key is checked, so every refusal must stay exactly what it was, and nothing read for a
 * refused request may reach an answer.
 */
describe('availability: the first read made with the key’s lookup', () => {
  let t: TestApp;
  let org: BookingOrg;
  let other: BookingOrg;
  /** No response-contract check: some answers here are refusals a route never documents for these keys. */
  let raw: HttpClient;

  beforeAll(async () => {
    t = await startTestApp();
    raw = new HttpClient(t.url, { checkContract: false });
    other = await bookingOrg(t);
    org = await bookingOrg(t);
  });
  afterAll(async () => {
    await t.close();
  });

  const slotsOf = (eventTypeId: string): string => `/v1/availability?eventTypeId=${eventTypeId}&start=2027-03-02&end=2027-03-02`;
  const publicSlotsOf = (eventTypeId: string): string =>
    `/v1/public/availability?eventTypeId=${eventTypeId}&start=2027-03-02&end=2027-03-02`;

  /** Asks twice with a key that may: the second answer comes from the cache, its fingerprint read with the key. */
  async function warm(path: string, key: { apiKey: string; headers?: Record<string, string> }): Promise<void> {
    expect((await t.http.get(path, key)).status).toBe(200);
    const again = await t.http.get(path, key);
    expect(again.status).toBe(200);
    expect(again.headers.get('cache-status')).toBe('availability; hit');
  }

  it('refuses a revoked, an expired, an unknown, a publishable and an unscoped key as before, warm as the answer is', async () => {
    await warm(slotsOf(org.eventTypeId), { apiKey: org.apiKey });
    const token = org.owner.accessToken;

    const revoked = await createApiKey(t.http, token);
    expect((await t.http.delete(`/v1/api-keys/${revoked.id}`, { token })).status).toBe(204);
    const expiring = await createApiKey(t.http, token, { expiresAt: new Date(t.clock.now().getTime() + 3600_000).toISOString() });
    const unscoped = await createApiKey(t.http, token, { scopes: ['bookings:read'] });
    const publishable = await createApiKey(t.http, token, { kind: 'publishable', allowedOrigins: [SHOP] });
    t.clock.advance(3600_000);
    try {
      const refusals: [string, number, string][] = [
        [revoked.apiKey, 401, 'KEY_REVOKED'],
        [expiring.apiKey, 401, 'KEY_EXPIRED'],
        [`${org.apiKey.slice(0, -4)}zzzz`, 401, 'UNAUTHORIZED'],
        [unscoped.apiKey, 403, 'INSUFFICIENT_SCOPE'],
        [publishable.apiKey, 403, 'FORBIDDEN'],
      ];
      for (const [apiKey, status, code] of refusals) {
        const res = await raw.get(slotsOf(org.eventTypeId), { apiKey });
        expect({ status: res.status, code: res.body.code, slots: res.body.slots }).toEqual({ status, code, slots: undefined });
      }
    } finally {
      t.clock.set(NOW);
    }
  });

  it('answers 404 for another organization’s event type, warm as its answer is there', async () => {
    await warm(slotsOf(other.eventTypeId), { apiKey: other.apiKey });
    const res = await t.http.get(slotsOf(other.eventTypeId), { apiKey: org.apiKey });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('NOT_FOUND');
    // And the other way round: each key is answered for its own organization only.
    expect((await t.http.get(slotsOf(org.eventTypeId), { apiKey: other.apiKey })).status).toBe(404);
  });

  it.each([
    ['a malformed id', 'evt_short'],
    ['a quote in the id', `evt_${'a'.repeat(20)}'--`],
    ['another kind of id', `usr_${'a'.repeat(24)}`],
    ['a NUL byte in the id', `evt_${'a'.repeat(20)}\u0000`],
    ['the id twice', '__TWICE__'],
  ])('refuses %s with 400 VALIDATION_ERROR naming eventTypeId', async (_label, value) => {
    const query =
      value === '__TWICE__' ? `eventTypeId=${org.eventTypeId}&eventTypeId=${org.eventTypeId}` : `eventTypeId=${encodeURIComponent(value)}`;
    const res = await t.http.get(`/v1/availability?${query}&start=2027-03-02&end=2027-03-02`, { apiKey: org.apiKey });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(res.body.details.map((detail: { field: string }) => detail.field)).toContain('eventTypeId');
  });

  it('public: a publishable key’s origins and event types are checked before anything read with it answers', async () => {
    const token = org.owner.accessToken;
    const unlisted = await createEventType(t, { token }, { durationMinutes: 30 });
    const pk = (await createApiKey(t.http, token, { kind: 'publishable', allowedOrigins: [SHOP], eventTypeIds: [org.eventTypeId] })).apiKey;
    await warm(publicSlotsOf(org.eventTypeId), { apiKey: pk, headers: { origin: SHOP } });
    // The same event type's answer is warm, and it is read with the key: another origin still gets no answer, nor CORS.
    const elsewhere = await raw.get(publicSlotsOf(org.eventTypeId), { apiKey: pk, headers: { origin: 'https://evil.example' } });
    expect(elsewhere.status).toBe(403);
    expect(elsewhere.body.code).toBe('ORIGIN_NOT_ALLOWED');
    expect(elsewhere.headers.get('access-control-allow-origin')).toBeNull();
    // An event type of the organization outside the key's list is no event type for the key, though its data was read
    // with the key and the same answer is warm (through a key without a list).
    const open = (await createApiKey(t.http, token, { kind: 'publishable', allowedOrigins: [SHOP] })).apiKey;
    await warm(publicSlotsOf(unlisted), { apiKey: open, headers: { origin: SHOP } });
    const unlistedRes = await t.http.get(publicSlotsOf(unlisted), { apiKey: pk, headers: { origin: SHOP } });
    expect(unlistedRes.status).toBe(404);
    expect(unlistedRes.body.code).toBe('NOT_FOUND');
    // Another organization's event type, through the key without a list.
    const foreign = await t.http.get(publicSlotsOf(other.eventTypeId), { apiKey: open, headers: { origin: SHOP } });
    expect(foreign.status).toBe(404);
  });
});
