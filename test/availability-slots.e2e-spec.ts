import { startTestApp, type TestApp } from './support/app.js';
import { insertBooking } from './support/bookings-sql.js';
import { addMember, createApiKey, registerOwner, type RegisteredOwner } from './support/factories.js';
import { createEventType, putSchedule, slots, starts } from './support/scheduling.js';

describe('availability: GET /v1/availability', () => {
  let t: TestApp;
  let owner: RegisteredOwner;
  /** API keys do not expire when the tests move the clock, JWTs would. Its acting user is the owner. */
  let me: { apiKey: string };

  beforeAll(async () => {
    t = await startTestApp();
    owner = await registerOwner(t.http, { timezone: 'Europe/Berlin' });
    me = { apiKey: (await createApiKey(t.http, owner.accessToken, { rateLimitPerMinute: 10000 })).apiKey };
  });
  afterAll(async () => {
    await t.close();
  });
  beforeEach(() => t.clock.set('2027-02-22T00:00:00Z'));

  it('lists the weekly hours as slots, rendered in the requested zone with its offset, sorted', async () => {
    await putSchedule(t, me, 'Europe/Berlin', [
      {
        dayOfWeek: 1,
        slots: [
          { startTime: '13:00', endTime: '14:00' },
          { startTime: '09:00', endTime: '11:00' },
        ],
      },
      { dayOfWeek: 3, slots: [{ startTime: '23:00', endTime: '24:00' }] },
    ]);
    const id = await createEventType(t, me, { durationMinutes: 60 });
    const res = await t.http.get(`/v1/availability?eventTypeId=${id}&start=2027-03-01&end=2027-03-07&timezone=Europe/Berlin`, me);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      timezone: 'Europe/Berlin',
      slots: [
        { start: '2027-03-01T09:00:00.000+01:00', end: '2027-03-01T10:00:00.000+01:00', hostUserId: owner.userId },
        { start: '2027-03-01T10:00:00.000+01:00', end: '2027-03-01T11:00:00.000+01:00', hostUserId: owner.userId },
        { start: '2027-03-01T13:00:00.000+01:00', end: '2027-03-01T14:00:00.000+01:00', hostUserId: owner.userId },
        { start: '2027-03-03T23:00:00.000+01:00', end: '2027-03-04T00:00:00.000+01:00', hostUserId: owner.userId },
      ],
    });
    // The range is in the requested zone: Wednesday 23:00 Berlin is Wednesday 22:00 UTC, and Tokyo sees it on Thursday.
    expect(await starts(t, me, id, '2027-03-03', '2027-03-03')).toEqual(['2027-03-03T22:00:00.000Z']);
    expect(await starts(t, me, id, '2027-03-04', '2027-03-04', 'Asia/Tokyo')).toEqual(['2027-03-04T07:00:00.000+09:00']);
    expect(await starts(t, me, id, '2027-03-03', '2027-03-03', 'Asia/Tokyo')).toEqual([]);
  });

  it('steps by slotIntervalMinutes from each window start; a slot must fit', async () => {
    await putSchedule(t, me, 'UTC', [{ dayOfWeek: 1, slots: [{ startTime: '09:10', endTime: '10:30' }] }]);
    const id = await createEventType(t, me, { durationMinutes: 30, slotIntervalMinutes: 20 });
    expect(await starts(t, me, id, '2027-03-01', '2027-03-01')).toEqual([
      '2027-03-01T09:10:00.000Z',
      '2027-03-01T09:30:00.000Z',
      '2027-03-01T09:50:00.000Z',
    ]);
  });

  describe('across DST changes', () => {
    it('America/New_York, spring forward on 2027-03-14: 09:00 stays 09:00 local; a window in the gap starts when it ends', async () => {
      t.clock.set('2027-03-08T00:00:00Z');
      await putSchedule(t, me, 'America/New_York', [
        ...[1, 2, 3, 4, 5, 6].map((dayOfWeek) => ({ dayOfWeek, slots: [{ startTime: '09:00', endTime: '10:00' }] })),
        { dayOfWeek: 0, slots: [{ startTime: '01:00', endTime: '04:00' }] },
      ]);
      const id = await createEventType(t, me, { durationMinutes: 60 });
      expect(await slots(t, me, id, '2027-03-12', '2027-03-15', 'America/New_York')).toEqual(
        [
          ['2027-03-12T09:00:00.000-05:00', '2027-03-12T10:00:00.000-05:00'],
          ['2027-03-13T09:00:00.000-05:00', '2027-03-13T10:00:00.000-05:00'],
          // 01:00 EST to 04:00 EDT is two elapsed hours: 02:00–03:00 does not exist.
          ['2027-03-14T01:00:00.000-05:00', '2027-03-14T03:00:00.000-04:00'],
          ['2027-03-14T03:00:00.000-04:00', '2027-03-14T04:00:00.000-04:00'],
          ['2027-03-15T09:00:00.000-04:00', '2027-03-15T10:00:00.000-04:00'],
        ].map(([start, end]) => ({ start, end, hostUserId: owner.userId })),
      );
      expect(await starts(t, me, id, '2027-03-13', '2027-03-15')).toEqual([
        '2027-03-13T14:00:00.000Z',
        '2027-03-14T06:00:00.000Z',
        '2027-03-14T07:00:00.000Z',
        '2027-03-15T13:00:00.000Z',
      ]);

      await putSchedule(t, me, 'America/New_York', [{ dayOfWeek: 0, slots: [{ startTime: '02:30', endTime: '04:00' }] }]);
      expect(await starts(t, me, id, '2027-03-14', '2027-03-14', 'America/New_York')).toEqual(['2027-03-14T03:00:00.000-04:00']);
    });

    it('Europe/Berlin, fall back on 2027-10-31: the repeated hour is offered twice; an ambiguous boundary is its first occurrence', async () => {
      t.clock.set('2027-10-25T00:00:00Z');
      await putSchedule(t, me, 'Europe/Berlin', [
        { dayOfWeek: 0, slots: [{ startTime: '01:00', endTime: '04:00' }] },
        { dayOfWeek: 1, slots: [{ startTime: '09:00', endTime: '10:00' }] },
        { dayOfWeek: 6, slots: [{ startTime: '09:00', endTime: '10:00' }] },
      ]);
      const id = await createEventType(t, me, { durationMinutes: 60 });
      expect(await starts(t, me, id, '2027-10-30', '2027-11-01', 'Europe/Berlin')).toEqual([
        '2027-10-30T09:00:00.000+02:00',
        '2027-10-31T01:00:00.000+02:00',
        '2027-10-31T02:00:00.000+02:00',
        '2027-10-31T02:00:00.000+01:00',
        '2027-10-31T03:00:00.000+01:00',
        '2027-11-01T09:00:00.000+01:00',
      ]);
      expect(await starts(t, me, id, '2027-10-30', '2027-11-01', 'UTC')).toEqual([
        '2027-10-30T07:00:00.000Z',
        '2027-10-30T23:00:00.000Z',
        '2027-10-31T00:00:00.000Z',
        '2027-10-31T01:00:00.000Z',
        '2027-10-31T02:00:00.000Z',
        '2027-11-01T08:00:00.000Z',
      ]);

      await putSchedule(t, me, 'Europe/Berlin', [{ dayOfWeek: 0, slots: [{ startTime: '02:30', endTime: '03:30' }] }]);
      expect(await starts(t, me, id, '2027-10-31', '2027-10-31', 'Europe/Berlin')).toEqual([
        '2027-10-31T02:30:00.000+02:00',
        '2027-10-31T02:30:00.000+01:00',
      ]);
    });
  });

  describe('busy time', () => {
    let org: RegisteredOwner;
    let who: { apiKey: string };
    let testKey: { apiKey: string };
    beforeAll(async () => {
      t.clock.set(Date.now());
      org = await registerOwner(t.http);
      who = { apiKey: (await createApiKey(t.http, org.accessToken, { rateLimitPerMinute: 10000 })).apiKey };
      testKey = await createApiKey(t.http, org.accessToken, { mode: 'test', scopes: ['availability:read'] });
      await putSchedule(t, who, 'UTC', [{ dayOfWeek: 1, slots: [{ startTime: '09:00', endTime: '12:00' }] }]);
    });
    const book = (eventTypeId: string, start: string, end: string, extra: Record<string, unknown> = {}) =>
      insertBooking(t, {
        organizationId: org.organizationId,
        eventTypeId,
        hostUserIds: [org.userId],
        startsAt: start,
        endsAt: end,
        ...extra,
      });

    it('blocks slots that overlap a booking padded by this event type’s buffers or by the booking’s own', async () => {
      const id = await createEventType(t, who, { durationMinutes: 30, bufferAfterMinutes: 15 });
      expect(await starts(t, who, id, '2027-03-01', '2027-03-01')).toHaveLength(6);
      // Our after-buffer reaches into it from 09:30; its own after-buffer covers 10:30.
      const other = await createEventType(t, who, { durationMinutes: 30 });
      await book(other, '2027-03-01T10:00:00Z', '2027-03-01T10:30:00Z', { bufferAfterMinutes: 30 });
      expect(await starts(t, who, id, '2027-03-01', '2027-03-01')).toEqual([
        '2027-03-01T09:00:00.000Z',
        '2027-03-01T11:00:00.000Z',
        '2027-03-01T11:30:00.000Z',
      ]);
    });

    it('counts confirmed and pending bookings, not cancelled ones, and keeps live and test mode apart', async () => {
      const id = await createEventType(t, who, { durationMinutes: 60 });
      const day = '2027-03-08';
      expect(await starts(t, who, id, day, day)).toEqual([
        '2027-03-08T09:00:00.000Z',
        '2027-03-08T10:00:00.000Z',
        '2027-03-08T11:00:00.000Z',
      ]);
      await book(id, '2027-03-08T09:00:00Z', '2027-03-08T10:00:00Z', { status: 'pending' });
      await book(id, '2027-03-08T10:00:00Z', '2027-03-08T11:00:00Z', { status: 'cancelled' });
      await book(id, '2027-03-08T11:00:00Z', '2027-03-08T12:00:00Z', { livemode: false });
      expect(await starts(t, who, id, day, day)).toEqual(['2027-03-08T10:00:00.000Z', '2027-03-08T11:00:00.000Z']);
      expect(await starts(t, { apiKey: testKey.apiKey }, id, day, day)).toEqual(['2027-03-08T09:00:00.000Z', '2027-03-08T10:00:00.000Z']);
    });

    it('applies minimum notice and the booking window from now', async () => {
      t.clock.set('2027-03-15T08:00:00Z');
      const notice = await createEventType(t, who, { durationMinutes: 60, minimumNoticeHours: 2 });
      expect(await starts(t, who, notice, '2027-03-15', '2027-03-15')).toEqual(['2027-03-15T10:00:00.000Z', '2027-03-15T11:00:00.000Z']);
      t.clock.set('2027-03-15T10:30:00Z');
      expect(await starts(t, who, notice, '2027-03-15', '2027-03-15')).toEqual([]);

      t.clock.set('2027-03-14T12:00:00Z');
      const window = await createEventType(t, who, { durationMinutes: 60, bookingWindowDays: 7 });
      // Now + 7 days is Sunday the 21st at 12:00: Monday the 15th is inside, Monday the 22nd 21 h past it.
      expect(await starts(t, who, window, '2027-03-15', '2027-03-29')).toEqual([
        '2027-03-15T09:00:00.000Z',
        '2027-03-15T10:00:00.000Z',
        '2027-03-15T11:00:00.000Z',
      ]);
    });

    it('stops a date at maxBookingsPerDay bookings of this event type, in the host’s local date', async () => {
      const capped = await createEventType(t, who, { durationMinutes: 60, maxBookingsPerDay: 1 });
      const other = await createEventType(t, who, { durationMinutes: 60 });
      await book(other, '2027-03-22T09:00:00Z', '2027-03-22T10:00:00Z');
      expect(await starts(t, who, capped, '2027-03-22', '2027-03-22')).toEqual(['2027-03-22T10:00:00.000Z', '2027-03-22T11:00:00.000Z']);
      await book(capped, '2027-03-22T11:00:00Z', '2027-03-22T12:00:00Z', { status: 'pending' });
      expect(await starts(t, who, capped, '2027-03-22', '2027-03-29')).toEqual([
        '2027-03-29T09:00:00.000Z',
        '2027-03-29T10:00:00.000Z',
        '2027-03-29T11:00:00.000Z',
      ]);
    });
  });

  it('answers 409 EVENT_TYPE_INACTIVE for a deleted event type and 404 for unknown or foreign ones', async () => {
    const id = await createEventType(t, me);
    await t.http.delete(`/v1/event-types/${id}`, me);
    const deleted = await t.http.get(`/v1/availability?eventTypeId=${id}&start=2027-03-01&end=2027-03-01`, me);
    expect(deleted.status).toBe(409);
    expect(deleted.body.code).toBe('EVENT_TYPE_INACTIVE');
    t.clock.set(Date.now());
    const other = await registerOwner(t.http);
    const foreign = await createEventType(t, { apiKey: (await createApiKey(t.http, other.accessToken)).apiKey });
    for (const eventTypeId of [foreign, 'evt_000000000000000000000000']) {
      const res = await t.http.get(`/v1/availability?eventTypeId=${eventTypeId}&start=2027-03-01&end=2027-03-01`, me);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('NOT_FOUND');
    }
  });

  it('accepts 93 dates and refuses 94 or a reversed range', async () => {
    const id = await createEventType(t, me);
    const ok = await t.http.get(`/v1/availability?eventTypeId=${id}&start=2027-03-01&end=2027-06-01`, me);
    expect(ok.status).toBe(200);
    for (const end of ['2027-06-02', '2027-02-28', '2030-01-01']) {
      const res = await t.http.get(`/v1/availability?eventTypeId=${id}&start=2027-03-01&end=${end}`, me);
      expect(res.status).toBe(400);
      expect(res.body.details).toEqual([{ field: 'end', message: expect.any(String) }]);
    }
  });

  it.each([
    ['start=2027-03-01&end=2027-03-01', 'eventTypeId'],
    ['eventTypeId=abc&start=2027-03-01&end=2027-03-01', 'eventTypeId'],
    ['eventTypeId=bkg_000000000000000000000000&start=2027-03-01&end=2027-03-01', 'eventTypeId'],
    ['eventTypeId=ID&end=2027-03-01', 'start'],
    ['eventTypeId=ID&start=2027-03-01', 'end'],
    ['eventTypeId=ID&start=2027-02-30&end=2027-03-01', 'start'],
    ['eventTypeId=ID&start=2027-3-1&end=2027-03-01', 'start'],
    ['eventTypeId=ID&start=2027-03-01T00:00:00Z&end=2027-03-01', 'start'],
    ['eventTypeId=ID&start=9999-12-31&end=9999-12-31', 'start'],
    ['eventTypeId=ID&start=0000-01-01&end=0000-01-01', 'start'],
    ['eventTypeId=ID&start=2027-03-01&end=tomorrow', 'end'],
    ['eventTypeId=ID&start=2027-03-01&end=2027-03-01&timezone=Mars/Olympus', 'timezone'],
    ['eventTypeId=ID&start=2027-03-01&end=2027-03-01&timezone=%2B05:00', 'timezone'],
    ['eventTypeId=ID&start=2027-03-01&end=2027-03-01&timezone=', 'timezone'],
    ['eventTypeId=ID&start=2027-03-01&end=2027-03-01&limit=5', 'limit'],
    ['eventTypeId=ID&eventTypeId=ID&start=2027-03-01&end=2027-03-01', 'eventTypeId'],
  ])('GET /v1/availability?%s → 400 naming %s', async (query, field) => {
    const id = await createEventType(t, me);
    const res = await t.http.get(`/v1/availability?${query.replaceAll('ID', id)}`, me);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it('needs availability:read for API keys; any role may read', async () => {
    const id = await createEventType(t, me);
    t.clock.set(Date.now());
    const without = await createApiKey(t.http, owner.accessToken, { scopes: ['event_types:read', 'availability:write'] });
    const res = await t.http.get(`/v1/availability?eventTypeId=${id}&start=2027-03-01&end=2027-03-01`, { apiKey: without.apiKey });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('INSUFFICIENT_SCOPE');
    expect(res.body.message).toContain('availability:read');
    const withScope = await createApiKey(t.http, owner.accessToken, { scopes: ['availability:read'] });
    expect(
      (await t.http.get(`/v1/availability?eventTypeId=${id}&start=2027-03-01&end=2027-03-01`, { apiKey: withScope.apiKey })).status,
    ).toBe(200);
    const member = await addMember(t, owner.accessToken, owner.organizationId, 'member');
    expect(
      (await t.http.get(`/v1/availability?eventTypeId=${id}&start=2027-03-01&end=2027-03-01`, { token: member.accessToken })).status,
    ).toBe(200);
  });
});
