import { DataSource } from 'typeorm';
import { RECONCILE_BOOKING_COUNTS_SQL } from '../libs/database/src/migrations/1795912996146-KeptBookingCounts.js';
import { BookingRows } from '../apps/api/src/modules/booking-core/index.js';
import { BookingCountsRepository } from '../apps/api/src/modules/booking-core/booking-counts.repository.js';
import { startTestApp, type TestApp } from './support/app.js';
import { bookingBody, bookingOrg, type BookingOrg, NOW } from './support/bookings.js';

/**
 * GET /bookings' totalCount without filters, or with `status` alone, is a kept count (migration KeptBookingCounts):
 * always the number a count of the bookings gives, whatever changed them, on however many instances at once.
 */
describe('kept booking counts', () => {
  let a: TestApp;
  let b: TestApp;
  let db: DataSource;
  beforeAll(async () => {
    a = await startTestApp({ env: { RUN_WORKERS: 'false' } });
    b = await startTestApp({ databaseUrl: a.databaseUrl, clock: a.clock, env: { RUN_WORKERS: 'false' } });
    db = a.app.get(DataSource);
  });
  afterAll(async () => {
    await b.app.close();
    await a.close();
  });

  const STATUSES = ['confirmed', 'pending', 'cancelled'] as const;
  /** What the API says for each status and for all, beside what counting the rows says. */
  async function totals(org: BookingOrg, key = org.apiKey): Promise<{ api: Record<string, number>; counted: Record<string, number> }> {
    const api: Record<string, number> = {};
    const counted: Record<string, number> = {};
    const livemode = key === org.apiKey;
    for (const status of [undefined, ...STATUSES]) {
      const res = await a.http.get(`/v1/bookings${status ? `?status=${status}` : ''}`, { apiKey: key });
      expect(res.status).toBe(200);
      api[status ?? 'all'] = res.body.totalCount;
      const [{ n }]: { n: number }[] = await db.query(
        `SELECT count(*)::int AS n FROM bookings WHERE organization_id = $1 AND livemode = $2 AND ($3::text IS NULL OR status = $3)`,
        [org.owner.organizationId, livemode, status ?? null],
      );
      counted[status ?? 'all'] = n;
    }
    return { api, counted };
  }
  const rowsOf = async (organizationId: string): Promise<number> =>
    (await db.query(`SELECT count(*)::int AS n FROM booking_count_deltas WHERE organization_id = $1`, [organizationId]))[0].n;
  const at = (day: number, slot: number): string =>
    new Date(Date.parse('2027-03-02T09:00:00Z') + day * 86_400_000 + slot * 30 * 60_000).toISOString();

  it('match a count of the bookings through creating, confirming, declining, cancelling and rescheduling, in each mode', async () => {
    const org = await bookingOrg(a);
    const review = await a.http.post(
      '/v1/event-types',
      { title: 'Review', slug: 'review', durationMinutes: 30, requiresConfirmation: true },
      { token: org.owner.accessToken },
    );
    expect(review.status).toBe(201);
    const made: string[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await a.http.post('/v1/bookings', bookingBody(org.eventTypeId, at(0, i)), { apiKey: org.apiKey });
      expect(res.status).toBe(201);
      made.push(res.body.booking.id);
    }
    const pending: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await a.http.post('/v1/bookings', bookingBody(review.body.eventType.id, at(1, i)), { apiKey: org.apiKey });
      expect(res.body.booking.status).toBe('pending');
      pending.push(res.body.booking.id);
    }
    expect((await a.http.post('/v1/bookings', bookingBody(org.eventTypeId, at(2, 0)), { apiKey: org.testKey })).status).toBe(201);
    let now = await totals(org);
    expect(now.api).toEqual({ all: 7, confirmed: 4, pending: 3, cancelled: 0 });
    expect(now.api).toEqual(now.counted);
    expect((await totals(org, org.testKey)).api).toEqual({ all: 1, confirmed: 1, pending: 0, cancelled: 0 });

    expect((await a.http.post(`/v1/bookings/${pending[0]}/confirm`, {}, { apiKey: org.apiKey })).status).toBe(200);
    expect((await a.http.post(`/v1/bookings/${pending[1]}/decline`, {}, { apiKey: org.apiKey })).status).toBe(200);
    expect((await a.http.post(`/v1/bookings/${made[0]}/cancel`, {}, { apiKey: org.apiKey })).status).toBe(200);
    const moved = await a.http.post(`/v1/bookings/${made[1]}/reschedule`, { newStartTime: at(3, 0) }, { apiKey: org.apiKey });
    expect(moved.status).toBe(200);
    now = await totals(org);
    expect(now.api).toEqual(now.counted);
    expect(now.api.all).toBe(8); // the reschedule's new booking; the old one cancelled
    expect(now.api.pending).toBe(1);

    // Folded: one row per group, the same totals.
    expect(await rowsOf(org.owner.organizationId)).toBeGreaterThan(4);
    await a.app.get(BookingRows).foldCounts();
    const groups: { n: number }[] = await db.query(
      `SELECT count(*)::int AS n FROM booking_count_deltas WHERE organization_id = $1 GROUP BY livemode, status`,
      [org.owner.organizationId],
    );
    expect(groups.every((group) => group.n === 1)).toBe(true);
    expect(await totals(org)).toEqual(now);
  });

  it('stay exact with bookings, cancellations and folds at once on two instances', async () => {
    const org = await bookingOrg(a);
    const first = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        (i % 2 ? b : a).http.post('/v1/bookings', bookingBody(org.eventTypeId, at(i % 4, Math.floor(i / 4))), {
          apiKey: org.apiKey,
        }),
      ),
    );
    expect(first.map((r) => r.status)).toEqual(first.map(() => 201));
    const fold = (): Promise<number> => a.app.get(BookingRows).foldCounts();
    const second = await Promise.all([
      ...first.slice(0, 8).map((r, i) => (i % 2 ? b : a).http.post(`/v1/bookings/${r.body.booking.id}/cancel`, {}, { apiKey: org.apiKey })),
      ...Array.from({ length: 8 }, (_, i) =>
        (i % 2 ? b : a).http.post('/v1/bookings', bookingBody(org.eventTypeId, at(i % 4, 6 + Math.floor(i / 4))), { apiKey: org.apiKey }),
      ),
      fold(),
      b.app.get(BookingRows).foldCounts(),
      fold(),
    ]);
    expect(second.slice(0, 16).map((r) => (r as { status: number }).status)).toEqual([...Array(8).fill(200), ...Array(8).fill(201)]);
    const now = await totals(org);
    expect(now.api).toEqual({ all: 32, confirmed: 24, pending: 0, cancelled: 8 });
    expect(now.api).toEqual(now.counted);
    await fold();
    expect((await totals(org)).api).toEqual(now.api);
  });

  it('count what the triggers never saw once reconciled (bookings from before the migration), and reconciling again adds nothing', async () => {
    const org = await bookingOrg(a);
    for (let i = 0; i < 3; i++) await a.http.post('/v1/bookings', bookingBody(org.eventTypeId, at(0, i)), { apiKey: org.apiKey });
    // As before the migration: bookings the counts know nothing of.
    await db.query(`DELETE FROM booking_count_deltas WHERE organization_id = $1`, [org.owner.organizationId]);
    expect((await totals(org)).api.all).toBe(0);
    await db.query(RECONCILE_BOOKING_COUNTS_SQL);
    const now = await totals(org);
    expect(now.api).toEqual({ all: 3, confirmed: 3, pending: 0, cancelled: 0 });
    const before = await rowsOf(org.owner.organizationId);
    await db.query(RECONCILE_BOOKING_COUNTS_SQL);
    expect(await rowsOf(org.owner.organizationId)).toBe(before);
  });

  it('fold a backlog in bounded statements: a group larger than the bound goes over several, its sum the same after each', async () => {
    const org = await bookingOrg(a);
    // A backlog as left by weeks with no job running: 25 rows of one group, 3 of another.
    await db.query(
      `INSERT INTO booking_count_deltas (organization_id, livemode, status, delta)
       SELECT $1, true, CASE WHEN g <= 25 THEN 'confirmed' ELSE 'cancelled' END, 1 FROM generate_series(1, 28) AS g`,
      [org.owner.organizationId],
    );
    const counts = a.app.get(BookingCountsRepository);
    const sums = async (): Promise<Record<string, number>> => (await totals(org)).api;
    const expected = { all: 28, confirmed: 25, pending: 0, cancelled: 3 };
    expect(await sums()).toEqual(expected);
    const rounds: number[] = [];
    for (let i = 0; i < 20 && (await rowsOf(org.owner.organizationId)) > 2; i++) {
      const round = await counts.fold(1000, 10);
      expect(round.taken).toBeLessThanOrEqual(10);
      rounds.push(round.taken);
      expect(await sums()).toEqual(expected);
    }
    expect(rounds.length).toBeGreaterThan(2);
    expect(await rowsOf(org.owner.organizationId)).toBe(2);
  });

  it('leave nothing of a deleted organization once folded', async () => {
    a.clock.set(NOW);
    const org = await bookingOrg(a);
    for (let i = 0; i < 3; i++) await a.http.post('/v1/bookings', bookingBody(org.eventTypeId, at(0, i)), { apiKey: org.apiKey });
    expect((await a.http.delete(`/v1/organizations/${org.owner.organizationId}`, { token: org.owner.accessToken })).status).toBe(204);
    const [{ sum }]: { sum: string | null }[] = await db.query(
      `SELECT sum(delta) AS sum FROM booking_count_deltas WHERE organization_id = $1`,
      [org.owner.organizationId],
    );
    expect(Number(sum)).toBe(0);
    await a.app.get(BookingRows).foldCounts();
    expect(await rowsOf(org.owner.organizationId)).toBe(0);
  });

  it('are what the list reads: a filter other than status counts the bookings instead', async () => {
    const org = await bookingOrg(a);
    for (let i = 0; i < 2; i++) await a.http.post('/v1/bookings', bookingBody(org.eventTypeId, at(0, i)), { apiKey: org.apiKey });
    // A kept count put wrong on purpose shows which totals read it.
    await db.query(`INSERT INTO booking_count_deltas (organization_id, livemode, status, delta) VALUES ($1, true, 'confirmed', 40)`, [
      org.owner.organizationId,
    ]);
    const total = async (query: string): Promise<number> =>
      (await a.http.get(`/v1/bookings${query}`, { apiKey: org.apiKey })).body.totalCount;
    expect(await total('')).toBe(42);
    expect(await total('?status=confirmed')).toBe(42);
    expect(await total(`?eventTypeId=${org.eventTypeId}`)).toBe(2);
    expect(await total('?status=confirmed&startDate=2027-03-01')).toBe(2);
    expect(await total('?attendeeEmail=attendee@example.com')).toBe(2);
  });
});
