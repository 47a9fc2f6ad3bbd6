import { startTestApp, type TestApp } from './support/app.js';
import { bookingBody, bookingOrg, type BookingOrg, WEEKDAYS_9_TO_5 } from './support/bookings.js';
import { addMember, createApiKey } from './support/factories.js';
import { check, createEventType, putSchedule, slots } from './support/scheduling.js';

const TEN = '2027-03-02T10:00:00Z';
const TEN_ISO = '2027-03-02T10:00:00.000Z';
const SHOP = 'https://shop.example.com';

describe('seats (api-rules.md § Seats and series)', () => {
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    a = await startTestApp();
    // A second instance on the same database and clock (and data directory, for invitation mails).
    b = await startTestApp({ databaseUrl: a.databaseUrl, clock: a.clock, env: { DATA_DIR: a.config.dataDir } });
  });
  afterAll(async () => {
    await b.app.close();
    await a.close();
  });

  const book = (
    t: TestApp,
    org: BookingOrg,
    startTime = TEN,
    email = `${Math.random().toString(36).slice(2)}@example.com`,
    eventTypeId = org.eventTypeId,
  ) => t.http.post('/v1/bookings', bookingBody(eventTypeId, startTime, { attendee: { email, firstName: 'Seat' } }), { apiKey: org.apiKey });

  const slotAt = async (t: TestApp, org: BookingOrg, start = TEN_ISO, eventTypeId = org.eventTypeId) =>
    (await slots(t, { apiKey: org.apiKey }, eventTypeId, '2027-03-02', '2027-03-02')).find((slot) => slot.start === start) as
      { start: string; seatsRemaining?: number } | undefined;

  it('offers a start with seatsRemaining while seats are left, then refuses it as already_booked; a cancel frees a seat', async () => {
    const org = await bookingOrg(a, { seatsPerSlot: 3 });
    expect(await slotAt(a, org)).toMatchObject({ start: TEN_ISO, seatsRemaining: 3 });
    const first = await book(a, org, TEN, 'one@example.com');
    expect(first.status).toBe(201);
    expect(await slotAt(b, org)).toMatchObject({ seatsRemaining: 2 });
    // The public availability shows the same count to the attendee's page.
    const pk = (await createApiKey(a.http, org.owner.accessToken, { kind: 'publishable', allowedOrigins: [SHOP] })).apiKey;
    const pub = await a.http.get(`/v1/public/availability?eventTypeId=${org.eventTypeId}&start=2027-03-02&end=2027-03-02`, {
      apiKey: pk,
      headers: { origin: SHOP },
    });
    expect(pub.status).toBe(200);
    expect(pub.body.slots.find((slot: { start: string }) => slot.start === TEN_ISO)).toEqual({
      start: TEN_ISO,
      end: '2027-03-02T10:30:00.000Z',
      seatsRemaining: 2,
    });

    const second = await book(b, org, TEN, 'two@example.com');
    const third = await book(a, org, TEN, 'three@example.com');
    expect([second.status, third.status]).toEqual([201, 201]);
    // Every seat is its own booking with the one host.
    expect(new Set([first, second, third].map((r) => r.body.booking.id)).size).toBe(3);
    expect(await slotAt(a, org)).toBeUndefined();
    expect(await check(b, { apiKey: org.apiKey }, org.eventTypeId, TEN)).toEqual({ available: false, reason: 'already_booked' });
    const fourth = await book(b, org, TEN, 'four@example.com');
    expect(fourth.status).toBe(409);
    expect(fourth.body).toMatchObject({ code: 'SLOT_UNAVAILABLE', details: [{ field: 'startTime', message: 'already_booked' }] });
    // The neighbouring starts stay plain: not offered as seats of 10:00.
    expect(await slotAt(a, org, '2027-03-02T10:30:00.000Z')).toMatchObject({ seatsRemaining: 3 });

    const cancelled = await a.http.post(`/v1/bookings/${second.body.booking.id}/cancel`, { token: second.body.booking.confirmationToken });
    expect(cancelled.status).toBe(200);
    expect(await slotAt(b, org)).toMatchObject({ seatsRemaining: 1 });
    expect((await book(b, org, TEN, 'five@example.com')).status).toBe(201);
  });

  it('occupies the host once, from the first seat: other event types, and a seated start that overlaps', async () => {
    const org = await bookingOrg(a, { seatsPerSlot: 5, slotIntervalMinutes: 15 });
    const plain = await createEventType(a, { token: org.owner.accessToken }, { durationMinutes: 30 });
    expect(await check(a, { apiKey: org.apiKey }, plain, TEN)).toEqual({ available: true });
    expect((await book(a, org)).status).toBe(201);
    expect(await check(b, { apiKey: org.apiKey }, plain, TEN)).toEqual({ available: false, reason: 'already_booked' });
    expect((await book(b, org, '2027-03-02T10:00:00Z', undefined, plain)).status).toBe(409);
    // A seat of another start of the same event type that overlaps 10:00 is refused; the same start is not.
    expect(await check(a, { apiKey: org.apiKey }, org.eventTypeId, '2027-03-02T10:15:00Z')).toEqual({
      available: false,
      reason: 'already_booked',
    });
    expect((await book(a, org, '2027-03-02T10:15:00Z')).status).toBe(409);
    expect(await slotAt(a, org, '2027-03-02T10:15:00.000Z')).toBeUndefined();
    expect(await slotAt(a, org, '2027-03-02T10:30:00.000Z')).toMatchObject({ seatsRemaining: 5 });
    expect((await book(a, org)).status).toBe(201);

    // The other way round: a plain booking of the host leaves no seat at an overlapping start.
    expect((await book(a, org, '2027-03-02T14:00:00Z', undefined, plain)).status).toBe(201);
    expect(await check(a, { apiKey: org.apiKey }, org.eventTypeId, '2027-03-02T14:15:00Z')).toEqual({
      available: false,
      reason: 'already_booked',
    });
  });

  it('maxBookingsPerDay counts distinct starts, not seats; holds take one seat each', async () => {
    const org = await bookingOrg(a, { seatsPerSlot: 2, maxBookingsPerDay: 1 });
    expect((await book(a, org)).status).toBe(201);
    const hold = await b.http.post('/v1/holds', { eventTypeId: org.eventTypeId, startTime: TEN, timezone: 'UTC' }, { apiKey: org.apiKey });
    expect(hold.status).toBe(201);
    // The hold took the last seat: the start is full (held only when holds alone fill it).
    expect(await check(a, { apiKey: org.apiKey }, org.eventTypeId, TEN)).toEqual({ available: false, reason: 'already_booked' });
    const other = await book(a, org, '2027-03-02T13:00:00Z');
    expect(other.status).toBe(409);
    expect(other.body.details[0].message).toBe('daily_limit_reached');
    const taken = await a.http.post('/v1/bookings', bookingBody(org.eventTypeId, TEN, { holdId: hold.body.hold.id }), {
      apiKey: org.apiKey,
    });
    expect(taken.status).toBe(201);
    expect(await slotAt(a, org)).toBeUndefined();
  });

  it('round robin gives every seat of a start the host of its first seat; collective occupies every host', async () => {
    const org = await bookingOrg(a);
    const alice = await addMember(a, org.owner.accessToken, org.owner.organizationId, 'member');
    await putSchedule(a, { apiKey: org.apiKey }, 'UTC', WEEKDAYS_9_TO_5, alice.userId);
    const hosts = [org.owner.userId, alice.userId];
    const roundRobin = await createEventType(
      a,
      { token: org.owner.accessToken },
      { durationMinutes: 30, schedulingType: 'round_robin', hostUserIds: hosts, seatsPerSlot: 3 },
    );
    const seated = await Promise.all([0, 1, 2].map(async (i) => (await book(i % 2 ? b : a, org, TEN, undefined, roundRobin)).body.booking));
    expect(seated.every((booking) => booking?.hostUserId === seated[0].hostUserId)).toBe(true);
    // The start is full: the other host does not open a second set of seats.
    expect((await book(a, org, TEN, undefined, roundRobin)).status).toBe(409);
    const otherHost = hosts.find((id) => id !== seated[0].hostUserId)!;
    const ownOfOther = await createEventType(a, { token: org.owner.accessToken }, { durationMinutes: 30, hostUserIds: [otherHost] });
    expect(await check(a, { apiKey: org.apiKey }, ownOfOther, TEN)).toEqual({ available: true });

    const collective = await createEventType(
      a,
      { token: org.owner.accessToken },
      { durationMinutes: 30, schedulingType: 'collective', hostUserIds: hosts, seatsPerSlot: 2 },
    );
    expect((await book(a, org, '2027-03-03T10:00:00Z', undefined, collective)).status).toBe(201);
    expect(await check(b, { apiKey: org.apiKey }, ownOfOther, '2027-03-03T10:00:00Z')).toEqual({
      available: false,
      reason: 'already_booked',
    });
    expect((await book(b, org, '2027-03-03T10:00:00Z', undefined, collective)).status).toBe(201);
    expect((await book(b, org, '2027-03-03T10:00:00Z', undefined, collective)).status).toBe(409);
  });

  it('50 concurrent bookings of one start with 10 seats over two instances: exactly 10 × 201 and 40 × 409', async () => {
    const org = await bookingOrg(a, { seatsPerSlot: 10 });
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => book(i % 2 ? b : a, org, TEN, `race${i}@example.com`)));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(10);
    expect(statuses.filter((s) => s === 409)).toHaveLength(40);
    expect(results.filter((r) => r.status === 409).every((r) => r.body.code === 'SLOT_UNAVAILABLE')).toBe(true);
    const listed = await a.http.get(`/v1/bookings?eventTypeId=${org.eventTypeId}&status=confirmed&limit=100`, { apiKey: org.apiKey });
    expect(listed.body.totalCount).toBe(10);
    expect(new Set(listed.body.bookings.map((x: { attendee: { email: string } }) => x.attendee.email)).size).toBe(10);
  });

  it('a hold and a booking racing for the last seat: exactly one wins, on every start', async () => {
    const org = await bookingOrg(a, { seatsPerSlot: 2 });
    const times = Array.from({ length: 8 }, (_, i) => `2027-03-02T${String(9 + i).padStart(2, '0')}:00:00Z`);
    for (const time of times) expect((await book(a, org, time)).status).toBe(201);
    const raced = await Promise.all(
      times.map(async (time, i) => {
        const [hold, booking] = await Promise.all([
          (i % 2 ? a : b).http.post(
            '/v1/holds',
            { eventTypeId: org.eventTypeId, startTime: time, timezone: 'UTC' },
            { apiKey: org.apiKey },
          ),
          book(i % 2 ? b : a, org, time),
        ]);
        return [hold.status, booking.status].sort().join();
      }),
    );
    expect(raced).toEqual(times.map(() => '201,409'));
  });

  it('keeps seatsPerSlot at or above the seats taken at a future start (409 SEATS_IN_USE), and apart from recurrence', async () => {
    const org = await bookingOrg(a, { seatsPerSlot: 4 });
    for (const email of ['x@example.com', 'y@example.com', 'z@example.com']) expect((await book(a, org, TEN, email)).status).toBe(201);
    const patch = (body: Record<string, unknown>) => a.http.patch(`/v1/event-types/${org.eventTypeId}`, body, { apiKey: org.apiKey });
    for (const seatsPerSlot of [2, null]) {
      const refused = await patch({ seatsPerSlot });
      expect(refused.status).toBe(409);
      expect(refused.body.code).toBe('SEATS_IN_USE');
    }
    expect((await patch({ seatsPerSlot: 3 })).body.eventType.seatsPerSlot).toBe(3);
    // Seats of a start that has passed no longer count.
    a.clock.set('2027-03-02T11:00:00Z');
    try {
      expect((await patch({ seatsPerSlot: null })).status).toBe(200);
    } finally {
      a.clock.set('2027-03-01T06:00:00Z');
    }

    const both = await a.http.post(
      '/v1/event-types',
      { title: 'Both', slug: 'both', durationMinutes: 30, seatsPerSlot: 5, recurrence: { frequency: 'weekly', interval: 1, maxCount: 4 } },
      { apiKey: org.apiKey },
    );
    expect(both.status).toBe(400);
    expect(both.body.details.map((d: { field: string }) => d.field)).toContain('seatsPerSlot');
    const recurring = await createEventType(a, { apiKey: org.apiKey }, { recurrence: { frequency: 'weekly', interval: 1, maxCount: 4 } });
    const added = await a.http.patch(`/v1/event-types/${recurring}`, { seatsPerSlot: 5 }, { apiKey: org.apiKey });
    expect(added.status).toBe(400);
    expect(added.body.details.map((d: { field: string }) => d.field)).toContain('seatsPerSlot');
  });

  it('lowers seatsPerSlot while seats are taken on two instances: never a 500, never below the seats taken', async () => {
    const org = await bookingOrg(a, { seatsPerSlot: 10 });
    const patch = (t: TestApp, seatsPerSlot: number) =>
      t.http.patch(`/v1/event-types/${org.eventTypeId}`, { seatsPerSlot }, { apiKey: org.apiKey });
    const results = await Promise.all([
      ...Array.from({ length: 12 }, (_, i) => book(i % 2 ? b : a, org, TEN, `racer${i}@example.com`)),
      ...[8, 6, 4, 2].map((seats, i) => patch(i % 2 ? a : b, seats)),
    ]);
    const bookings = results.slice(0, 12).map((r) => r.status);
    const patches = results.slice(12).map((r) => r.status);
    expect(bookings.filter((status) => status !== 201 && status !== 409)).toEqual([]);
    expect(patches.filter((status) => status !== 200 && status !== 409)).toEqual([]);
    const seats = (await a.http.get(`/v1/event-types/${org.eventTypeId}`, { apiKey: org.apiKey })).body.eventType.seatsPerSlot;
    const taken = (await a.http.get(`/v1/bookings?eventTypeId=${org.eventTypeId}&status=confirmed&limit=100`, { apiKey: org.apiKey })).body
      .bookings.length;
    expect(taken).toBe(bookings.filter((status) => status === 201).length);
    expect(taken).toBeLessThanOrEqual(seats);
  });

  it.each([
    ['1', 1],
    ['1001', 1001],
    ['a string', '5'],
    ['a fraction', 2.5],
  ])('refuses seatsPerSlot %s with 400 naming the field', async (_name, seatsPerSlot) => {
    const org = await bookingOrg(a);
    const created = await a.http.post(
      '/v1/event-types',
      { title: 'S', slug: `s-${Date.now()}`, durationMinutes: 30, seatsPerSlot },
      { apiKey: org.apiKey },
    );
    expect(created.status).toBe(400);
    expect(created.body.details.map((d: { field: string }) => d.field)).toEqual(['seatsPerSlot']);
    const patched = await a.http.patch(`/v1/event-types/${org.eventTypeId}`, { seatsPerSlot }, { apiKey: org.apiKey });
    expect(patched.status).toBe(400);
  });

  it('shows an attendee only their own seat: the booking, the attendee view and a reschedule name no one else', async () => {
    const org = await bookingOrg(a, { seatsPerSlot: 3 });
    const mine = await book(a, org, TEN, 'me@example.com');
    await book(a, org, TEN, 'other.seat@example.com');
    const own = await a.http.get(`/v1/public/bookings/${mine.body.booking.id}`, {
      headers: { authorization: `Token ${mine.body.booking.confirmationToken}` },
    });
    expect(own.status).toBe(200);
    for (const body of [mine.body, own.body]) {
      expect(JSON.stringify(body)).toContain('me@example.com');
      expect(JSON.stringify(body)).not.toContain('other.seat');
    }
    const moved = await a.http.post(
      `/v1/bookings/${mine.body.booking.id}/reschedule`,
      { token: mine.body.booking.confirmationToken, newStartTime: '2027-03-02T11:00:00Z' },
      {},
    );
    expect(moved.status).toBe(200);
    expect(JSON.stringify(moved.body)).not.toContain('other.seat');
    // The host sees every seat, each as its own booking.
    const listed = await a.http.get(`/v1/bookings?eventTypeId=${org.eventTypeId}&status=confirmed`, { apiKey: org.apiKey });
    expect(listed.body.bookings.map((x: { attendee: { email: string } }) => x.attendee.email).sort()).toEqual([
      'me@example.com',
      'other.seat@example.com',
    ]);
  });
});
