import { startTestApp, type TestApp } from './support/app.js';
import { insertBooking, setBookingStatus } from './support/bookings-sql.js';
import { createApiKey, registerOwner, type RegisteredOwner } from './support/factories.js';
import { check, createEventType, putSchedule, starts } from './support/scheduling.js';

describe('availability: GET /v1/availability/check', () => {
  let t: TestApp;
  let owner: RegisteredOwner;
  let me: { apiKey: string };
  let eventTypeId: string;
  let readless: { apiKey: string };

  beforeAll(async () => {
    t = await startTestApp();
    owner = await registerOwner(t.http);
    me = { apiKey: (await createApiKey(t.http, owner.accessToken, { rateLimitPerMinute: 10000 })).apiKey };
    readless = await createApiKey(t.http, owner.accessToken, { scopes: ['event_types:read', 'availability:write'] });
    // Mondays 09:00–12:00 UTC; now is Monday 2027-03-01 08:00 UTC.
    t.clock.set('2027-03-01T08:00:00Z');
    await putSchedule(t, me, 'UTC', [{ dayOfWeek: 1, slots: [{ startTime: '09:00', endTime: '12:00' }] }]);
    eventTypeId = await createEventType(t, me, { durationMinutes: 60, minimumNoticeHours: 2, bookingWindowDays: 30, maxBookingsPerDay: 1 });
    const unavailable = await t.http.post('/v1/availability/overrides', { date: '2027-03-15', type: 'unavailable', reason: 'Holiday' }, me);
    expect(unavailable.status).toBe(201);
    const base = { organizationId: owner.organizationId, eventTypeId, hostUserIds: [owner.userId] };
    await insertBooking(t, { ...base, startsAt: '2027-03-08T10:00:00Z', endsAt: '2027-03-08T11:00:00Z' });
    await insertBooking(t, { ...base, startsAt: '2027-03-22T09:00:00Z', endsAt: '2027-03-22T10:00:00Z', status: 'pending' });
  });
  afterAll(async () => {
    await t.close();
  });
  beforeEach(() => t.clock.set('2027-03-01T08:00:00Z'));

  it.each([
    ['2027-03-01T10:00:00Z', { available: true }],
    ['2027-03-01T07:00:00Z', { available: false, reason: 'in_the_past' }],
    ['2027-03-01T09:00:00Z', { available: false, reason: 'minimum_notice' }],
    ['2027-04-05T09:00:00Z', { available: false, reason: 'outside_booking_window' }],
    ['2027-03-02T10:00:00Z', { available: false, reason: 'outside_availability' }],
    ['2027-03-01T10:30:00Z', { available: false, reason: 'outside_availability' }],
    ['2027-03-01T11:30:00Z', { available: false, reason: 'outside_availability' }],
    ['2027-03-15T09:00:00Z', { available: false, reason: 'outside_availability' }],
    ['2027-03-08T10:00:00Z', { available: false, reason: 'already_booked' }],
    ['2027-03-22T11:00:00Z', { available: false, reason: 'daily_limit_reached' }],
    ['2027-03-29T11:00:00Z', { available: true }],
  ])('%s → %j', async (startTime, expected) => {
    expect(await check(t, me, eventTypeId, startTime)).toEqual(expected);
  });

  it('reads a start without an offset as wall-clock time in timezone (default UTC)', async () => {
    expect(await check(t, me, eventTypeId, '2027-03-01T10:00:00')).toEqual({ available: true });
    expect(await check(t, me, eventTypeId, '2027-03-01T11:00:00', 'Europe/Berlin')).toEqual({ available: true });
    expect(await check(t, me, eventTypeId, '2027-03-01T10:00:00', 'Europe/Berlin')).toEqual({ available: false, reason: 'minimum_notice' });
    expect(await check(t, me, eventTypeId, '2027-03-01T12:00:00+01:00', 'America/New_York')).toEqual({ available: true });
    expect(await check(t, me, eventTypeId, '2027-03-01T10:00:00.000Z')).toEqual({ available: true });
  });

  it('says true exactly for the starts GET /availability lists', async () => {
    const listed = await starts(t, me, eventTypeId, '2027-03-01', '2027-03-31');
    expect(listed.length).toBeGreaterThan(3);
    for (const start of listed) expect(await check(t, me, eventTypeId, start)).toEqual({ available: true });
    const gridStarts = ['01', '08', '15', '22', '29'].flatMap((day) =>
      ['09', '10', '11'].map((hour) => `2027-03-${day}T${hour}:00:00.000Z`),
    );
    const unlisted = gridStarts.filter((start) => !listed.includes(start));
    expect(unlisted.length).toBeGreaterThan(3);
    for (const start of unlisted) expect((await check(t, me, eventTypeId, start)).available).toBe(false);
  });

  it('a freed slot is available again at once', async () => {
    const id = await createEventType(t, me, { durationMinutes: 60 });
    const bookingId = await insertBooking(t, {
      organizationId: owner.organizationId,
      eventTypeId: id,
      hostUserIds: [owner.userId],
      startsAt: '2027-03-29T09:00:00Z',
      endsAt: '2027-03-29T10:00:00Z',
    });
    expect(await check(t, me, id, '2027-03-29T09:00:00Z')).toEqual({ available: false, reason: 'already_booked' });
    await setBookingStatus(t, bookingId, 'cancelled');
    expect(await check(t, me, id, '2027-03-29T09:00:00Z')).toEqual({ available: true });
  });

  it.each([
    ['eventTypeId=ID', 'startTime'],
    ['eventTypeId=ID&startTime=tomorrow', 'startTime'],
    ['eventTypeId=ID&startTime=2027-02-30T10:00:00', 'startTime'],
    ['eventTypeId=ID&startTime=2027-03-01T25:00:00', 'startTime'],
    ['eventTypeId=ID&startTime=2027-03-01', 'startTime'],
    ['eventTypeId=ID&startTime=1709280000', 'startTime'],
    ['eventTypeId=ID&startTime=' + 'x'.repeat(65), 'startTime'],
    ['eventTypeId=ID&startTime=2027-03-01T10:00:00&timezone=Nowhere/Land', 'timezone'],
    ['startTime=2027-03-01T10:00:00Z', 'eventTypeId'],
    ['eventTypeId=evt_x&startTime=2027-03-01T10:00:00Z', 'eventTypeId'],
    ['eventTypeId=ID&startTime=2027-03-01T10:00:00Z&hostUserId=usr_x', 'hostUserId'],
  ])('GET /v1/availability/check?%s → 400 naming %s', async (query, field) => {
    const res = await t.http.get(`/v1/availability/check?${query.replace('ID', eventTypeId)}`, me);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it('answers 404 for unknown and 409 for deleted event types, 403 without availability:read', async () => {
    const unknown = await t.http.get('/v1/availability/check?eventTypeId=evt_000000000000000000000000&startTime=2027-03-01T10:00:00Z', me);
    expect(unknown.status).toBe(404);
    const id = await createEventType(t, me);
    await t.http.delete(`/v1/event-types/${id}`, me);
    const deleted = await t.http.get(`/v1/availability/check?eventTypeId=${id}&startTime=2027-03-01T10:00:00Z`, me);
    expect(deleted.status).toBe(409);
    expect(deleted.body.code).toBe('EVENT_TYPE_INACTIVE');
    const scope = await t.http.get(`/v1/availability/check?eventTypeId=${eventTypeId}&startTime=2027-03-01T10:00:00Z`, {
      apiKey: readless.apiKey,
    });
    expect(scope.status).toBe(403);
    expect(scope.body.code).toBe('INSUFFICIENT_SCOPE');
  });
});
