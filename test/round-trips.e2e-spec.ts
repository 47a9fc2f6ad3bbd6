import { jest } from '@jest/globals';
import pg from 'pg';
import { startTestApp, type TestApp } from './support/app.js';
import { bookingBody, bookingOrg, type BookingOrg } from './support/bookings.js';
import { createApiKey } from './support/factories.js';

/**
 * Round trips to PostgreSQL of the hot paths (issue 40, docs/contributing/performance.md § Bookings): each is a wake-up of both
 * processes, the unit of a request's cost. An instance without background jobs, so every message counted is the
 * request's own (bench/round-trips.bench.ts counts the same, and lists them).
 */
describe('round trips to PostgreSQL per request', () => {
  let t: TestApp;
  let org: BookingOrg;
  let slot = Date.parse('2027-03-02T09:00:00Z');
  const next = (): string => new Date((slot += 30 * 60_000)).toISOString();

  beforeAll(async () => {
    t = await startTestApp({ env: { RUN_WORKERS: 'false' } });
    org = await bookingOrg(t);
  });
  afterAll(async () => {
    await t.close();
  });

  /** Every message the app's connections send while `request` runs. */
  async function messagesOf(request: () => Promise<{ status: number }>, status: number): Promise<string[]> {
    const query = jest.spyOn(pg.Client.prototype, 'query');
    try {
      expect((await request()).status).toBe(status);
      return query.mock.calls.map(([first]) => String(typeof first === 'string' ? first : (first as { text?: string }).text));
    } finally {
      query.mockRestore();
    }
  }

  const book = (extra: Record<string, unknown> = {}) =>
    t.http.post('/v1/bookings', bookingBody(org.eventTypeId, next(), extra), { apiKey: org.apiKey });

  it('a booking: four (the key; BEGIN with the locks and the event type; the slot read with the contacts; the writes with COMMIT)', async () => {
    await book();
    const messages = await messagesOf(() => book(), 201);
    expect(messages).toHaveLength(4);
    // The locks leave with the read after them: the server takes them first, so the event type is read under them.
    expect(messages[1]).toMatch(/^START TRANSACTION;\s*SELECT count\(pg_advisory_xact_lock[\s\S]*;\s*SELECT to_jsonb\(et\)/);
    // The rows, the outbox rows and the audit entry leave together, and the COMMIT with them.
    expect(messages[3]).toMatch(/INSERT INTO bookings[\s\S]*INSERT INTO mail_outbox[\s\S]*INSERT INTO audit_entries[\s\S]*;\nCOMMIT$/);
  });

  it('a hold: four (its locks with the event type’s read); the booking through it: seven (the hold read before the event type; the contacts and the hosts’ zones on their own)', async () => {
    const hold = () => {
      const startTime = next();
      slot -= 30 * 60_000;
      return t.http.post('/v1/holds', { eventTypeId: org.eventTypeId, startTime, timezone: 'UTC' }, { apiKey: org.apiKey });
    };
    const warm = await hold();
    expect((await book({ holdId: warm.body.hold.id })).status).toBe(201);
    let holdId = '';
    const held = await messagesOf(async () => {
      const res = await hold();
      holdId = res.body.hold.id;
      return res;
    }, 201);
    expect(held).toHaveLength(4);
    // The hosts' contacts and, since mails are written in each host's zone (contract § 23), their schedules' zones:
    // two reads of two modules (team, schedules) on the transaction's connection.
    expect(await messagesOf(() => book({ holdId }), 201)).toHaveLength(7);
  });

  it('a warm GET /v1/availability: one (the key’s lookup carries the cache fingerprint)', async () => {
    const path = `/v1/availability?eventTypeId=${org.eventTypeId}&start=2027-03-08&end=2027-03-12&timezone=UTC`;
    expect((await t.http.get(path, { apiKey: org.apiKey })).status).toBe(200);
    const messages = await messagesOf(() => t.http.get(path, { apiKey: org.apiKey }), 200);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatch(/FROM availability_versions[\s\S]*FROM api_keys k/);
  });

  it('a warm routed GET /v1/availability: one (the key’s lookup carries the fingerprint and the routing response)', async () => {
    const form = await t.http.post(
      '/v1/routing-forms',
      {
        name: 'Inbound',
        fields: [{ id: 'size', label: 'Company size', type: 'number', required: true }],
        routes: [{ when: { all: [{ field: 'size', op: 'gte', value: 0 }] }, to: { eventTypeId: org.eventTypeId } }],
        fallback: { message: 'Thank you' },
      },
      { apiKey: org.apiKey },
    );
    expect(form.status).toBe(201);
    const response = await t.http.post(
      `/v1/routing-forms/${form.body.routingForm.id}/responses`,
      { answers: { size: 5 } },
      { apiKey: org.apiKey },
    );
    expect(response.status).toBe(201);
    const path = `/v1/availability?eventTypeId=${org.eventTypeId}&start=2027-03-08&end=2027-03-12&timezone=UTC&routingResponseId=${response.body.response.id}`;
    expect((await t.http.get(path, { apiKey: org.apiKey })).status).toBe(200);
    const messages = await messagesOf(() => t.http.get(path, { apiKey: org.apiKey }), 200);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatch(/FROM routing_responses r[\s\S]*FROM api_keys k/);
  });

  it('a warm GET /v1/public/availability: one; without an Origin the key’s lookup reads nothing more (403)', async () => {
    const shop = 'https://shop.example.com';
    const pk = (await createApiKey(t.http, org.owner.accessToken, { kind: 'publishable', allowedOrigins: [shop] })).apiKey;
    const path = `/v1/public/availability?eventTypeId=${org.eventTypeId}&start=2027-03-08&end=2027-03-12&timezone=UTC`;
    expect((await t.http.get(path, { apiKey: pk, headers: { origin: shop } })).status).toBe(200);
    const messages = await messagesOf(() => t.http.get(path, { apiKey: pk, headers: { origin: shop } }), 200);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatch(/FROM availability_versions[\s\S]*FROM api_keys k/);
    const refused = await messagesOf(() => t.http.get(path, { apiKey: pk }), 403);
    expect(refused).toHaveLength(1);
    expect(refused[0]).not.toContain('availability_versions');
  });
});
