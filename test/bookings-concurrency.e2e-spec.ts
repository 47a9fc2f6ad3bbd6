import pg from 'pg';
import { startTestApp, type TestApp } from './support/app.js';
import { bookingBody, bookingOrg } from './support/bookings.js';

describe('bookings under concurrency, and Idempotency-Key', () => {
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    a = await startTestApp();
    // A second instance of the service on the same database, sharing nothing else.
    b = await startTestApp({ databaseUrl: a.databaseUrl, clock: a.clock });
  });
  afterAll(async () => {
    await b.app.close();
    await a.close();
  });

  it('50 concurrent requests for one slot over two instances: exactly one 201, 49 × 409, no 5xx', async () => {
    const org = await bookingOrg(a);
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        (i % 2 ? b : a).http.post(
          '/v1/bookings',
          bookingBody(org.eventTypeId, '2027-03-02T10:00:00Z', { attendee: { email: `p${i}@example.com` } }),
          {
            apiKey: org.apiKey,
          },
        ),
      ),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(49);
    expect(results.filter((r) => r.status === 409).every((r) => r.body.code === 'SLOT_UNAVAILABLE')).toBe(true);
    expect((await a.http.get('/v1/bookings', { apiKey: org.apiKey })).body.totalCount).toBe(1);
  });

  it('reschedules and bookings of one host, 80 at once over two instances: no deadlock, no pool exhaustion, no 5xx, no double booking', async () => {
    const c = await startTestApp({ databaseUrl: a.databaseUrl, clock: a.clock });
    const d = await startTestApp({ databaseUrl: a.databaseUrl, clock: a.clock });
    // How many of the database's sessions wait for a lock, sampled through the burst: a request that waits for a host's
    // lock on a pooled connection (instead of in its process's queue) holds that connection from every other request.
    const watcher = new pg.Client({ connectionString: a.databaseUrl });
    await watcher.connect();
    let watching = true;
    let mostWaiting = 0;
    const watched = (async () => {
      while (watching) {
        const { rows } = await watcher.query<{ waiting: number }>(
          `SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
        );
        mostWaiting = Math.max(mostWaiting, rows[0].waiting);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    })();
    try {
      const org = await bookingOrg(a);
      const auth = { apiKey: org.apiKey };
      const originals: { id: string }[] = [];
      for (let i = 0; i < 10; i++) {
        const time = new Date(Date.parse('2027-03-02T09:00:00Z') + i * 30 * 60_000).toISOString();
        const created = await a.http.post('/v1/bookings', bookingBody(org.eventTypeId, time), auth);
        expect(created.status).toBe(201);
        originals.push(created.body.booking);
      }
      // Six contested times the next day: reschedules (each booking asked by several requests) and new bookings race for them.
      const targets = Array.from({ length: 6 }, (_, i) => new Date(Date.parse('2027-03-03T09:00:00Z') + i * 30 * 60_000).toISOString());
      const results = await Promise.all(
        Array.from({ length: 80 }, (_, i) => {
          const instance = i % 4 < 2 ? c : d;
          const time = targets[Math.floor(i / 2) % targets.length];
          return i % 2
            ? instance.http.post('/v1/bookings', bookingBody(org.eventTypeId, time, { attendee: { email: `n${i}@example.com` } }), auth)
            : instance.http.post(`/v1/bookings/${originals[(i / 2) % 10].id}/reschedule`, { newStartTime: time }, auth);
        }),
      );
      watching = false;
      await watched;
      const statuses = results.map((r) => r.status);
      expect(statuses.filter((status) => ![200, 201, 409].includes(status))).toEqual([]);
      // Each instance lets one request of a host at a time take a connection: at most one waits on the other's lock.
      expect(mostWaiting).toBeLessThanOrEqual(2);
      const confirmed = (await a.http.get('/v1/bookings?status=confirmed&limit=100', auth)).body.bookings as {
        id: string;
        startsAt: string;
      }[];
      const starts = confirmed.map((booking) => booking.startsAt);
      expect(new Set(starts).size).toBe(starts.length);
      // Every success is a booking that stands, and each contested time went to exactly one of them.
      const won = results.filter((r) => r.status === 200 || r.status === 201).map((r) => r.body.booking.id as string);
      expect(won.length).toBe(targets.length);
      expect(
        confirmed
          .filter((booking) => won.includes(booking.id))
          .map((booking) => booking.startsAt)
          .sort(),
      ).toEqual(targets.map((time) => new Date(time).toISOString()));
      // A reschedule replaces its booking; a new booking adds one.
      expect(confirmed).toHaveLength(10 + statuses.filter((status) => status === 201).length);
    } finally {
      watching = false;
      await watched.catch(() => undefined);
      await watcher.end();
      await Promise.all([c.app.close(), d.app.close()]);
    }
  });

  it('keeps buffers and the daily cap under concurrent requests for different times', async () => {
    const org = await bookingOrg(a, { bufferAfterMinutes: 30, maxBookingsPerDay: 2 });
    const times = ['2027-03-02T09:00:00Z', '2027-03-02T09:30:00Z', '2027-03-02T11:00:00Z', '2027-03-02T13:00:00Z', '2027-03-02T15:00:00Z'];
    const results = await Promise.all(
      times.map((time, i) => (i % 2 ? b : a).http.post('/v1/bookings', bookingBody(org.eventTypeId, time), { apiKey: org.apiKey })),
    );
    expect(results.every((r) => r.status === 201 || r.status === 409)).toBe(true);
    const booked = (await a.http.get('/v1/bookings?status=confirmed', { apiKey: org.apiKey })).body.bookings as {
      startsAt: string;
      endsAt: string;
    }[];
    expect(booked.length).toBe(2);
    // Never two meetings within 30 minutes of each other (the buffer after each).
    const [first, second] = booked.map((x) => [Date.parse(x.startsAt), Date.parse(x.endsAt)]);
    expect(second[0] - first[1]).toBeGreaterThanOrEqual(30 * 60_000);
  });

  it('replays the stored response for the same key and body, with Idempotent-Replayed', async () => {
    const org = await bookingOrg(a);
    const body = bookingBody(org.eventTypeId, '2027-03-02T10:00:00Z');
    const headers = { 'idempotency-key': 'order-1234' };
    const first = await a.http.post('/v1/bookings', body, { apiKey: org.apiKey, headers });
    const again = await b.http.post('/v1/bookings', body, { apiKey: org.apiKey, headers });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect((await a.http.get('/v1/bookings', { apiKey: org.apiKey })).body.totalCount).toBe(1);
    const other = await a.http.post('/v1/bookings', { ...body, notes: 'different' }, { apiKey: org.apiKey, headers });
    expect(other.status).toBe(422);
    expect(other.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
    // The key is scoped to the mode: a test key may use the same key for its own booking.
    expect((await a.http.post('/v1/bookings', body, { apiKey: org.testKey, headers })).status).toBe(201);
  });

  it('10 concurrent requests with one key make one booking; the others replay or wait their turn', async () => {
    const org = await bookingOrg(a);
    const body = bookingBody(org.eventTypeId, '2027-03-02T10:00:00Z');
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        (i % 2 ? b : a).http.post('/v1/bookings', body, { apiKey: org.apiKey, headers: { 'idempotency-key': 'same' } }),
      ),
    );
    const created = results.filter((r) => r.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((r) => r.body.booking.id)).size).toBe(1);
    expect(results.filter((r) => r.status !== 201).every((r) => r.status === 409 && r.body.code === 'IDEMPOTENCY_KEY_IN_USE')).toBe(true);
    expect((await a.http.get('/v1/bookings', { apiKey: org.apiKey })).body.totalCount).toBe(1);
  });

  it('stores a 409 but not a 400, and expires keys after 24 hours', async () => {
    const org = await bookingOrg(a);
    await a.http.post('/v1/bookings', bookingBody(org.eventTypeId, '2027-03-02T10:00:00Z'), { apiKey: org.apiKey });
    const taken = bookingBody(org.eventTypeId, '2027-03-02T10:00:00Z', { attendee: { email: 'late@example.com' } });
    const conflict = await a.http.post('/v1/bookings', taken, { apiKey: org.apiKey, headers: { 'idempotency-key': 'k409' } });
    expect(conflict.status).toBe(409);
    // Even after the slot frees up, the key answers what it answered.
    await a.http.post(
      `/v1/bookings/${(await a.http.get('/v1/bookings', { apiKey: org.apiKey })).body.bookings[0].id}/cancel`,
      {},
      { apiKey: org.apiKey },
    );
    const replay = await a.http.post('/v1/bookings', taken, { apiKey: org.apiKey, headers: { 'idempotency-key': 'k409' } });
    expect(replay.status).toBe(409);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');

    const invalid = { ...bookingBody(org.eventTypeId, '2027-03-02T12:00:00Z'), attendee: { email: 'bad' } };
    expect((await a.http.post('/v1/bookings', invalid, { apiKey: org.apiKey, headers: { 'idempotency-key': 'k400' } })).status).toBe(400);
    const fixed = { ...invalid, attendee: { email: 'good@example.com' } };
    expect((await a.http.post('/v1/bookings', fixed, { apiKey: org.apiKey, headers: { 'idempotency-key': 'k400' } })).status).toBe(201);

    a.clock.advance(24 * 3600_000 + 1000);
    const later = await a.http.post('/v1/bookings', taken, { apiKey: org.apiKey, headers: { 'idempotency-key': 'k409' } });
    expect(later.headers.get('idempotent-replayed')).toBeNull();
    a.clock.set('2027-03-01T06:00:00Z');
  });

  it('rejects a malformed Idempotency-Key with 400', async () => {
    const org = await bookingOrg(a);
    const res = await a.http.post('/v1/bookings', bookingBody(org.eventTypeId, '2027-03-02T10:00:00Z'), {
      apiKey: org.apiKey,
      headers: { 'idempotency-key': 'x'.repeat(256) },
    });
    expect(res.status).toBe(400);
    expect(res.body.details[0].field).toBe('Idempotency-Key');
  });
});
