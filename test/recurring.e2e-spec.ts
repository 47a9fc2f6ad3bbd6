import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DataSource } from 'typeorm';
import { startTestApp, type TestApp } from './support/app.js';
import { bookingBody, bookingOrg, type BookingOrg, NOW, WEEKDAYS_9_TO_5 } from './support/bookings.js';
import { addMember, createApiKey } from './support/factories.js';
import { createEventType, putSchedule } from './support/scheduling.js';

const EVERY_DAY_8_TO_18 = [0, 1, 2, 3, 4, 5, 6].map((dayOfWeek) => ({ dayOfWeek, slots: [{ startTime: '08:00', endTime: '18:00' }] }));
const WEEKLY = { frequency: 'weekly', interval: 1, maxCount: 10 };

interface Occurrence {
  id: string;
  startsAt: string;
  endsAt: string;
  status: string;
}

/** One busy half hour on Tuesday 2027-03-23 10:00 UTC, as the host's ICS feed. */
const FEED = [
  'BEGIN:VCALENDAR',
  'VERSION:2.0',
  'PRODID:-//recurring//EN',
  'BEGIN:VEVENT',
  'UID:busy@recurring',
  'DTSTART:20270323T100000Z',
  'DTEND:20270323T103000Z',
  'END:VEVENT',
  'END:VCALENDAR',
  '',
].join('\r\n');

describe('recurring bookings (api-rules.md § Seats and series)', () => {
  let a: TestApp;
  let b: TestApp;
  let feedServer: Server;
  let feedUrl: string;
  beforeAll(async () => {
    feedServer = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/calendar' }).end(FEED));
    await new Promise<void>((resolve) => feedServer.listen(0, '127.0.0.1', resolve));
    feedUrl = `http://127.0.0.1:${(feedServer.address() as AddressInfo).port}/busy.ics`;
    a = await startTestApp();
    b = await startTestApp({ databaseUrl: a.databaseUrl, clock: a.clock, env: { DATA_DIR: a.config.dataDir } });
  });
  afterAll(async () => {
    await b.app.close();
    await a.close();
    await new Promise((resolve) => feedServer.close(resolve));
  });
  afterEach(() => a.clock.set(NOW));

  const bookSeries = (t: TestApp, org: BookingOrg, startTime: string, recurrenceCount: number, extra: Record<string, unknown> = {}) =>
    t.http.post('/v1/bookings', bookingBody(org.eventTypeId, startTime, { recurrenceCount, ...extra }), { apiKey: org.apiKey });

  const seriesBookings = async (t: TestApp, org: BookingOrg, seriesId: string) =>
    (await t.http.get(`/v1/bookings?seriesId=${seriesId}&limit=100`, { apiKey: org.apiKey })).body.bookings as {
      id: string;
      startsAt: string;
      status: string;
      seriesId: string;
      occurrence: number;
    }[];

  /** An organization whose owner is free 08:00–18:00 every day in `zone`, with a recurring 30-minute event type. */
  const zonedOrg = async (zone: string, recurrence: Record<string, unknown>): Promise<BookingOrg> => {
    const org = await bookingOrg(a, { recurrence, bookingWindowDays: 365 });
    await putSchedule(a, { apiKey: org.apiKey }, zone, EVERY_DAY_8_TO_18);
    return org;
  };

  // Every start written out by hand: New York is UTC−5 until 2027-03-14 and from 2027-11-07, else UTC−4;
  // Berlin is UTC+1 until 2027-03-28 and from 2027-10-31, else UTC+2.
  it.each([
    [
      'weekly 10:00 in New York across the spring change',
      'America/New_York',
      WEEKLY,
      '2027-03-01T06:00:00Z',
      '2027-03-02T10:00:00-05:00',
      ['2027-03-02T15:00:00.000Z', '2027-03-09T15:00:00.000Z', '2027-03-16T14:00:00.000Z', '2027-03-23T14:00:00.000Z'],
    ],
    [
      'weekly 10:00 in New York across the autumn change',
      'America/New_York',
      WEEKLY,
      '2027-10-20T00:00:00Z',
      '2027-10-26T10:00:00-04:00',
      ['2027-10-26T14:00:00.000Z', '2027-11-02T14:00:00.000Z', '2027-11-09T15:00:00.000Z', '2027-11-16T15:00:00.000Z'],
    ],
    [
      'weekly 10:00 in Berlin across the spring change',
      'Europe/Berlin',
      WEEKLY,
      '2027-03-01T06:00:00Z',
      '2027-03-16T10:00:00+01:00',
      ['2027-03-16T09:00:00.000Z', '2027-03-23T09:00:00.000Z', '2027-03-30T08:00:00.000Z', '2027-04-06T08:00:00.000Z'],
    ],
    [
      'weekly 10:00 in Berlin across the autumn change',
      'Europe/Berlin',
      WEEKLY,
      '2027-10-15T00:00:00Z',
      '2027-10-19T10:00:00+02:00',
      ['2027-10-19T08:00:00.000Z', '2027-10-26T08:00:00.000Z', '2027-11-02T09:00:00.000Z', '2027-11-09T09:00:00.000Z'],
    ],
    [
      'monthly on the 31st in Berlin, skipping the short months',
      'Europe/Berlin',
      { frequency: 'monthly', interval: 1, maxCount: 12 },
      '2027-03-01T06:00:00Z',
      '2027-03-31T10:00:00+02:00',
      [
        '2027-03-31T08:00:00.000Z',
        '2027-05-31T08:00:00.000Z',
        '2027-07-31T08:00:00.000Z',
        '2027-08-31T08:00:00.000Z',
        '2027-10-31T09:00:00.000Z',
      ],
    ],
    [
      'every third day at 10:00 in New York across the spring change',
      'America/New_York',
      { frequency: 'daily', interval: 3, maxCount: 12 },
      '2027-03-01T06:00:00Z',
      '2027-03-11T10:00:00-05:00',
      ['2027-03-11T15:00:00.000Z', '2027-03-14T14:00:00.000Z', '2027-03-17T14:00:00.000Z', '2027-03-20T14:00:00.000Z'],
    ],
  ])('%s keeps the wall-clock time of the first', async (_name, zone, recurrence, now, first, expected) => {
    a.clock.set(now);
    const org = await zonedOrg(zone, recurrence);
    const res = await bookSeries(b, org, first, expected.length, { timezone: zone });
    expect(res.status).toBe(201);
    expect(res.body.series).toEqual({
      id: expect.stringMatching(/^ser_[0-9A-Za-z]{20,}$/),
      count: expected.length,
      bookings: expected.map((startsAt) => ({
        id: expect.stringMatching(/^bkg_/),
        startsAt,
        endsAt: new Date(Date.parse(startsAt) + 30 * 60_000).toISOString(),
        status: 'confirmed',
      })),
    });
    expect(res.body.booking).toMatchObject({
      id: res.body.series.bookings[0].id,
      startsAt: expected[0],
      seriesId: res.body.series.id,
      occurrence: 1,
      confirmationToken: expect.any(String),
    });
    const stored = await seriesBookings(a, org, res.body.series.id);
    const byOccurrence = [...stored].sort((p, q) => p.occurrence - q.occurrence);
    expect(byOccurrence.map((x) => [x.occurrence, x.startsAt, x.seriesId])).toEqual(
      expected.map((startsAt, i) => [i + 1, startsAt, res.body.series.id]),
    );
  });

  it('refuses a whole series with one detail per refused occurrence (off-hours, day off, external calendar, taken), storing nothing', async () => {
    const org = await bookingOrg(a, { recurrence: WEEKLY });
    const owner = { token: org.owner.accessToken };
    expect(
      (
        await a.http.post(
          '/v1/availability/overrides',
          { date: '2027-03-09', type: 'custom', slots: [{ startTime: '13:00', endTime: '17:00' }] },
          owner,
        )
      ).status,
    ).toBe(201);
    expect((await a.http.post('/v1/availability/overrides', { date: '2027-03-16', type: 'unavailable' }, owner)).status).toBe(201);
    const calendar = await a.http.post('/v1/calendars', { type: 'ics', url: feedUrl }, owner);
    expect(calendar.body.calendar).toMatchObject({ status: 'ok', busyCount: 1 });
    const plain = await createEventType(a, owner, { durationMinutes: 30 });
    expect((await a.http.post('/v1/bookings', bookingBody(plain, '2027-03-30T10:00:00Z'), { apiKey: org.apiKey })).status).toBe(201);

    const refused = await bookSeries(b, org, '2027-03-02T10:00:00Z', 6);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('SLOT_UNAVAILABLE');
    expect(refused.body.details).toEqual([
      { field: 'startTime', message: 'occurrence 2 at 2027-03-09T10:00:00.000Z: outside_availability' },
      { field: 'startTime', message: 'occurrence 3 at 2027-03-16T10:00:00.000Z: outside_availability' },
      { field: 'startTime', message: 'occurrence 4 at 2027-03-23T10:00:00.000Z: calendar_conflict' },
      { field: 'startTime', message: 'occurrence 5 at 2027-03-30T10:00:00.000Z: already_booked' },
    ]);
    expect((await a.http.get(`/v1/bookings?eventTypeId=${org.eventTypeId}`, { apiKey: org.apiKey })).body.totalCount).toBe(0);
    const [{ count }] = await a.app
      .get(DataSource)
      .query(`SELECT count(*)::int AS count FROM booking_series WHERE organization_id = $1`, [org.owner.organizationId]);
    expect(count).toBe(0);
    // Only the first occurrence must lie inside the booking window; a later one far beyond it is fine.
    const short = await createEventType(a, owner, { durationMinutes: 30, bookingWindowDays: 10, recurrence: WEEKLY });
    const far = await a.http.post('/v1/bookings', bookingBody(short, '2027-04-06T11:00:00Z', { recurrenceCount: 4 }), {
      apiKey: org.apiKey,
    });
    expect(far.status).toBe(409);
    expect(far.body.details).toEqual([{ field: 'startTime', message: 'occurrence 1 at 2027-04-06T11:00:00.000Z: outside_booking_window' }]);
    const within = await a.http.post('/v1/bookings', bookingBody(short, '2027-03-03T11:00:00Z', { recurrenceCount: 4 }), {
      apiKey: org.apiKey,
    });
    expect(within.status).toBe(201);
    expect(within.body.series.bookings.at(-1).startsAt).toBe('2027-03-24T11:00:00.000Z');
  });

  it('round robin: the series goes to a host free at every occurrence; none → 409', async () => {
    const org = await bookingOrg(a);
    const alice = await addMember(a, org.owner.accessToken, org.owner.organizationId, 'member');
    await putSchedule(a, { apiKey: org.apiKey }, 'UTC', WEEKDAYS_9_TO_5, alice.userId);
    const owner = { token: org.owner.accessToken };
    const roundRobin = await createEventType(a, owner, {
      durationMinutes: 30,
      schedulingType: 'round_robin',
      hostUserIds: [org.owner.userId, alice.userId],
      recurrence: WEEKLY,
    });
    const ownersOwn = await createEventType(a, owner, { durationMinutes: 30 });
    const alicesOwn = await createEventType(a, owner, { durationMinutes: 30, hostUserIds: [alice.userId] });
    // The owner, first in the rotation, is busy at the third occurrence only.
    expect((await a.http.post('/v1/bookings', bookingBody(ownersOwn, '2027-03-16T10:00:00Z'), { apiKey: org.apiKey })).status).toBe(201);
    const series = await a.http.post('/v1/bookings', bookingBody(roundRobin, '2027-03-02T10:00:00Z', { recurrenceCount: 4 }), {
      apiKey: org.apiKey,
    });
    expect(series.status).toBe(201);
    const hosts = await Promise.all(
      series.body.series.bookings.map(
        async (x: Occurrence) => (await a.http.get(`/v1/bookings/${x.id}`, { apiKey: org.apiKey })).body.booking.hostUserId,
      ),
    );
    expect(hosts).toEqual([alice.userId, alice.userId, alice.userId, alice.userId]);

    // Now each host is busy at some occurrence of another series: nobody is free at all of them.
    expect((await a.http.post('/v1/bookings', bookingBody(alicesOwn, '2027-03-03T10:00:00Z'), { apiKey: org.apiKey })).status).toBe(201);
    expect((await a.http.post('/v1/bookings', bookingBody(ownersOwn, '2027-03-10T10:00:00Z'), { apiKey: org.apiKey })).status).toBe(201);
    const none = await a.http.post('/v1/bookings', bookingBody(roundRobin, '2027-03-03T10:00:00Z', { recurrenceCount: 3 }), {
      apiKey: org.apiKey,
    });
    expect(none.status).toBe(409);
    expect(none.body.code).toBe('SLOT_UNAVAILABLE');
    expect((await a.http.get(`/v1/bookings?eventTypeId=${roundRobin}`, { apiKey: org.apiKey })).body.totalCount).toBe(4);
  });

  it('cancels “following” from the third of six in one go, and the series token works on every occurrence', async () => {
    const org = await bookingOrg(a, { recurrence: WEEKLY });
    const made = await bookSeries(a, org, '2027-03-02T10:00:00Z', 6);
    expect(made.status).toBe(201);
    const token = made.body.booking.confirmationToken as string;
    const ids = (made.body.series.bookings as Occurrence[]).map((x) => x.id);
    for (const id of ids) {
      const own = await b.http.get(`/v1/public/bookings/${id}`, { headers: { authorization: `Token ${token}` } });
      expect(own.status).toBe(200);
      expect(own.body.booking).toMatchObject({ id, status: 'confirmed' });
    }
    // The fifth is cancelled on its own first; "following" from the third leaves it as it is.
    expect((await a.http.post(`/v1/bookings/${ids[4]}/cancel`, { token, scope: 'this' })).body).not.toHaveProperty('cancelledBookingIds');
    const cancelled = await b.http.post(`/v1/bookings/${ids[2]}/cancel`, { token, scope: 'following', reason: 'Moving away' });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ booking: { id: ids[2], status: 'cancelled', cancellationReason: 'Moving away' } });
    expect(cancelled.body.cancelledBookingIds).toEqual([ids[2], ids[3], ids[5]]);
    const stored = await seriesBookings(a, org, made.body.series.id);
    expect(Object.fromEntries(stored.map((x) => [x.occurrence, x.status]))).toEqual({
      1: 'confirmed',
      2: 'confirmed',
      3: 'cancelled',
      4: 'cancelled',
      5: 'cancelled',
      6: 'cancelled',
    });
    expect((await a.http.post(`/v1/bookings/${ids[3]}/cancel`, { token })).body.code).toBe('BOOKING_NOT_ACTIVE');
    // The freed times are bookable again.
    expect((await a.http.post('/v1/bookings', bookingBody(org.eventTypeId, '2027-03-16T10:00:00Z'), { apiKey: org.apiKey })).status).toBe(
      201,
    );
    // Another series' token is no key to this one.
    const other = await bookSeries(a, org, '2027-03-02T14:00:00Z', 2);
    const foreign = await a.http.post(`/v1/bookings/${ids[0]}/cancel`, { token: other.body.booking.confirmationToken });
    expect(foreign.status).toBe(401);
  });

  it('reschedules one occurrence only; the series and its token follow it', async () => {
    const org = await bookingOrg(a, { recurrence: WEEKLY });
    const made = await bookSeries(a, org, '2027-03-02T10:00:00Z', 3);
    const token = made.body.booking.confirmationToken as string;
    const [first, second, third] = made.body.series.bookings as Occurrence[];
    const moved = await b.http.post(`/v1/bookings/${second.id}/reschedule`, { token, newStartTime: '2027-03-10T15:00:00Z' });
    expect(moved.status).toBe(200);
    const replacement = moved.body.booking.id as string;
    const series = await a.http.get(`/v1/series/${made.body.series.id}`, { apiKey: org.apiKey });
    expect(series.status).toBe(200);
    expect(series.body.series).toEqual({
      id: made.body.series.id,
      eventTypeId: org.eventTypeId,
      frequency: 'weekly',
      interval: 1,
      count: 3,
      timezone: 'UTC',
      createdAt: NOW,
      livemode: true,
      bookings: [
        { id: first.id, startsAt: first.startsAt, endsAt: first.endsAt, status: 'confirmed' },
        { id: replacement, startsAt: '2027-03-10T15:00:00.000Z', endsAt: '2027-03-10T15:30:00.000Z', status: 'confirmed' },
        { id: third.id, startsAt: third.startsAt, endsAt: third.endsAt, status: 'confirmed' },
      ],
    });
    const detail = (await a.http.get(`/v1/bookings/${replacement}`, { apiKey: org.apiKey })).body.booking;
    expect(detail).toMatchObject({ seriesId: made.body.series.id, occurrence: 2 });
    // The series token still opens the moved occurrence, and the others are untouched.
    expect((await a.http.get(`/v1/public/bookings/${replacement}`, { headers: { authorization: `Token ${token}` } })).status).toBe(200);
    expect((await a.http.get(`/v1/bookings/${third.id}`, { apiKey: org.apiKey })).body.booking.startsAt).toBe(third.startsAt);
  });

  it('Idempotency-Key covers the whole series; the public route books a series too', async () => {
    const org = await bookingOrg(a, { recurrence: WEEKLY });
    const headers = { 'idempotency-key': 'series-1' };
    const body = bookingBody(org.eventTypeId, '2027-03-02T10:00:00Z', { recurrenceCount: 5 });
    const first = await a.http.post('/v1/bookings', body, { apiKey: org.apiKey, headers });
    const again = await b.http.post('/v1/bookings', body, { apiKey: org.apiKey, headers });
    expect(first.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect((await a.http.get(`/v1/bookings?eventTypeId=${org.eventTypeId}`, { apiKey: org.apiKey })).body.totalCount).toBe(5);

    const shop = 'https://shop.example.com';
    const pk = (await createApiKey(a.http, org.owner.accessToken, { kind: 'publishable', allowedOrigins: [shop] })).apiKey;
    const pub = await a.http.post('/v1/public/bookings', bookingBody(org.eventTypeId, '2027-03-03T10:00:00Z', { recurrenceCount: 2 }), {
      apiKey: pk,
      headers: { origin: shop },
    });
    expect(pub.status).toBe(201);
    expect(pub.body.series.bookings.map((x: Occurrence) => x.startsAt)).toEqual(['2027-03-03T10:00:00.000Z', '2027-03-10T10:00:00.000Z']);
    expect(pub.body.booking).not.toHaveProperty('hostUserId');
    // Test keys make test series, apart from live ones.
    const test = await bookSeries(a, { ...org, apiKey: org.testKey }, '2027-03-02T10:00:00Z', 2);
    expect(test.status).toBe(201);
    expect((await a.http.get(`/v1/series/${test.body.series.id}`, { apiKey: org.testKey })).body.series.livemode).toBe(false);
    expect((await a.http.get(`/v1/series/${test.body.series.id}`, { apiKey: org.apiKey })).status).toBe(404);
  });

  it('20 concurrent overlapping series of 8 weekly occurrences over two instances: each wholly in or out, no overlaps', async () => {
    const org = await bookingOrg(a, { recurrence: WEEKLY, bookingWindowDays: 365 });
    // Series i starts in week i: each overlaps the next seven.
    const firsts = Array.from({ length: 20 }, (_, i) => new Date(Date.parse('2027-03-02T10:00:00Z') + i * 7 * 86_400_000).toISOString());
    const results = await Promise.all(
      firsts.map((first, i) =>
        (i % 2 ? b : a).http.post(
          '/v1/bookings',
          bookingBody(org.eventTypeId, first, { recurrenceCount: 8, attendee: { email: `s${i}@example.com` } }),
          {
            apiKey: org.apiKey,
          },
        ),
      ),
    );
    expect(results.every((r) => r.status === 201 || (r.status === 409 && r.body.code === 'SLOT_UNAVAILABLE'))).toBe(true);
    const won = results.filter((r) => r.status === 201);
    expect(won.length).toBeGreaterThanOrEqual(1);
    const listed = (await a.http.get(`/v1/bookings?eventTypeId=${org.eventTypeId}&limit=100`, { apiKey: org.apiKey })).body.bookings as {
      startsAt: string;
      seriesId: string;
      status: string;
    }[];
    expect(listed).toHaveLength(won.length * 8);
    expect(new Set(listed.map((x) => x.startsAt)).size).toBe(listed.length);
    const perSeries = new Map<string, number>();
    for (const x of listed) perSeries.set(x.seriesId, (perSeries.get(x.seriesId) ?? 0) + 1);
    expect([...perSeries.values()].every((n) => n === 8)).toBe(true);
    expect(new Set(perSeries.keys())).toEqual(new Set(won.map((r) => r.body.series.id)));
  });

  it('GET /series/:id and ?seriesId answer 404 or 400 for what is not a series of the caller', async () => {
    const org = await bookingOrg(a, { recurrence: WEEKLY });
    const foreign = await bookingOrg(a, { recurrence: WEEKLY });
    const made = await bookSeries(a, foreign, '2027-03-02T10:00:00Z', 2);
    expect((await a.http.get(`/v1/series/${made.body.series.id}`, { apiKey: org.apiKey })).status).toBe(404);
    expect((await a.http.get(`/v1/series/ser_${'x'.repeat(24)}`, { apiKey: org.apiKey })).status).toBe(404);
    expect((await a.http.get('/v1/series/bkg_123', { apiKey: org.apiKey })).status).toBe(400);
    expect((await a.http.get(`/v1/bookings?seriesId=${made.body.series.id}`, { apiKey: org.apiKey })).body.totalCount).toBe(0);
    const bad = await a.http.get('/v1/bookings?seriesId=nope', { apiKey: org.apiKey });
    expect(bad.status).toBe(400);
    expect(bad.body.details.map((d: { field: string }) => d.field)).toEqual(['seriesId']);
    // A member who hosts none of it does not see it.
    const member = await addMember(a, foreign.owner.accessToken, foreign.owner.organizationId, 'member');
    expect((await a.http.get(`/v1/series/${made.body.series.id}`, { token: member.accessToken })).status).toBe(404);
    expect((await a.http.get(`/v1/series/${made.body.series.id}`, { token: foreign.owner.accessToken })).status).toBe(200);
  });

  it.each([
    ['recurrenceCount 1', { recurrenceCount: 1 }],
    ['recurrenceCount above maxCount', { recurrenceCount: 11 }],
    ['recurrenceCount above 52', { recurrenceCount: 53 }],
    ['recurrenceCount as a string', { recurrenceCount: '3' }],
    ['recurrenceCount as a fraction', { recurrenceCount: 2.5 }],
  ])('refuses %s with 400 naming recurrenceCount', async (_name, extra) => {
    const org = await bookingOrg(a, { recurrence: WEEKLY });
    const res = await a.http.post('/v1/bookings', bookingBody(org.eventTypeId, '2027-03-02T10:00:00Z', extra), { apiKey: org.apiKey });
    expect(res.status).toBe(400);
    expect(res.body.details.map((d: { field: string }) => d.field)).toEqual(['recurrenceCount']);
    expect((await a.http.get('/v1/bookings', { apiKey: org.apiKey })).body.totalCount).toBe(0);
  });

  it('refuses recurrenceCount on an event type without recurrence', async () => {
    const org = await bookingOrg(a);
    const res = await bookSeries(a, org, '2027-03-02T10:00:00Z', 3);
    expect(res.status).toBe(400);
    expect(res.body.details.map((d: { field: string }) => d.field)).toEqual(['recurrenceCount']);
  });

  it.each([
    ['interval 0', { ...WEEKLY, interval: 0 }, 'recurrence.interval'],
    ['interval 13', { ...WEEKLY, interval: 13 }, 'recurrence.interval'],
    ['maxCount 1', { ...WEEKLY, maxCount: 1 }, 'recurrence.maxCount'],
    ['maxCount 53', { ...WEEKLY, maxCount: 53 }, 'recurrence.maxCount'],
    ['a yearly frequency', { ...WEEKLY, frequency: 'yearly' }, 'recurrence.frequency'],
    ['no frequency', { interval: 1, maxCount: 4 }, 'recurrence.frequency'],
    ['a string', 'weekly', 'recurrence'],
  ])('refuses a recurrence with %s (400 naming the field), on create and on update', async (_name, recurrence, field) => {
    const org = await bookingOrg(a);
    const created = await a.http.post(
      '/v1/event-types',
      { title: 'R', slug: `r-${Date.now()}`, durationMinutes: 30, recurrence },
      { apiKey: org.apiKey },
    );
    expect(created.status).toBe(400);
    expect(created.body.details.map((d: { field: string }) => d.field)).toContain(field);
    const patched = await a.http.patch(`/v1/event-types/${org.eventTypeId}`, { recurrence }, { apiKey: org.apiKey });
    expect(patched.status).toBe(400);
  });

  it('sets and clears recurrence on an event type', async () => {
    const org = await bookingOrg(a);
    const set = await a.http.patch(
      `/v1/event-types/${org.eventTypeId}`,
      { recurrence: { frequency: 'monthly', interval: 2, maxCount: 6 } },
      { apiKey: org.apiKey },
    );
    expect(set.body.eventType.recurrence).toEqual({ frequency: 'monthly', interval: 2, maxCount: 6 });
    const made = await bookSeries(a, org, '2027-03-05T10:00:00Z', 3);
    expect(made.body.series.bookings.map((x: Occurrence) => x.startsAt)).toEqual([
      '2027-03-05T10:00:00.000Z',
      '2027-05-05T10:00:00.000Z',
      '2027-07-05T10:00:00.000Z',
    ]);
    const cleared = await a.http.patch(`/v1/event-types/${org.eventTypeId}`, { recurrence: null }, { apiKey: org.apiKey });
    expect(cleared.body.eventType.recurrence).toBeNull();
    expect((await bookSeries(a, org, '2027-03-03T10:00:00Z', 2)).status).toBe(400);
  });
});
