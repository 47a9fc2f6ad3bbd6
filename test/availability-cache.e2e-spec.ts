import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestApp, type TestApp } from './support/app.js';
import { bookingBody, bookingOrg, WEEKDAYS_9_TO_5, type BookingOrg } from './support/bookings.js';
import { addMember, type AddedMember } from './support/factories.js';
import { waitFor } from './support/process.js';
import { createEventType, putSchedule } from './support/scheduling.js';

/**
 * The availability cache is never stale (issue 15): each kind of change committed through instance A is
 * in the very next answer of instance B, whose entry was warm (`Cache-Status: availability; hit`) just before.
 */
describe('availability cache across instances', () => {
  let a: TestApp;
  let b: TestApp;
  let org: BookingOrg;
  let feed: Server;
  let feedBody = '';

  beforeAll(async () => {
    feed = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/calendar' }).end(feedBody));
    await new Promise<void>((resolve) => feed.listen(0, '127.0.0.1', resolve));
    a = await startTestApp();
    // Same database, same clock; B runs no workers, so nothing but A's commits change what it reads.
    b = await startTestApp({ databaseUrl: a.databaseUrl, clock: a.clock, env: { RUN_WORKERS: 'false' } });
    org = await bookingOrg(a);
  });

  afterAll(async () => {
    await b?.app.close();
    await a?.close();
    await new Promise<void>((resolve) => feed.close(() => resolve()));
  });

  const key = (): { apiKey: string } => ({ apiKey: org.apiKey });

  /** Slot starts (HH:MM of 2027-03-02 UTC) of B's answer, and whether it came from the cache. */
  async function onB(eventTypeId = org.eventTypeId, date = '2027-03-02'): Promise<{ starts: string[]; cache: string; hosts: string[] }> {
    const res = await b.http.get(`/v1/availability?eventTypeId=${eventTypeId}&start=${date}&end=${date}`, key());
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    return {
      starts: res.body.slots.map((slot: { start: string }) => slot.start.slice(11, 16)),
      hosts: res.body.slots.map((slot: { hostUserId: string }) => slot.hostUserId),
      cache: String(res.headers.get('cache-status')),
    };
  }

  /** B answers twice; the second answer must come from its cache. */
  async function warm(eventTypeId = org.eventTypeId, date = '2027-03-02'): Promise<string[]> {
    const first = await onB(eventTypeId, date);
    const second = await onB(eventTypeId, date);
    expect(second).toEqual({ ...first, cache: 'availability; hit' });
    return second.starts;
  }

  it('a booking and its cancellation', async () => {
    expect(await warm()).toContain('10:00');
    const booked = await a.http.post('/v1/bookings', bookingBody(org.eventTypeId, '2027-03-02T10:00:00Z'), key());
    expect(booked.status).toBe(201);
    const after = await onB();
    expect(after.cache).toBe('availability; fwd=miss');
    expect(after.starts).not.toContain('10:00');

    expect(await warm()).not.toContain('10:00');
    expect((await a.http.post(`/v1/bookings/${booked.body.booking.id}/cancel`, {}, key())).status).toBe(200);
    expect((await onB()).starts).toContain('10:00');
  });

  it('a reschedule frees the old time and takes the new one', async () => {
    const booked = (await a.http.post('/v1/bookings', bookingBody(org.eventTypeId, '2027-03-02T11:00:00Z'), key())).body.booking;
    expect(await warm()).not.toContain('11:00');
    const moved = await a.http.post(`/v1/bookings/${booked.id}/reschedule`, { newStartTime: '2027-03-02T12:00:00Z' }, key());
    expect(moved.status).toBe(200);
    const after = (await onB()).starts;
    expect(after).toContain('11:00');
    expect(after).not.toContain('12:00');
  });

  it('the weekly schedule', async () => {
    expect(await warm()).toContain('09:00');
    await putSchedule(a, { token: org.owner.accessToken }, 'UTC', [{ dayOfWeek: 2, slots: [{ startTime: '13:00', endTime: '15:00' }] }]);
    expect((await onB()).starts).toEqual(['13:00', '13:30', '14:00', '14:30']);
    await putSchedule(a, { token: org.owner.accessToken }, 'UTC', WEEKDAYS_9_TO_5);
  });

  it('a date override, made and removed', async () => {
    expect((await warm()).length).toBeGreaterThan(2);
    const override = await a.http.post(
      '/v1/availability/overrides',
      { date: '2027-03-02', type: 'custom', slots: [{ startTime: '16:00', endTime: '17:00' }] },
      { token: org.owner.accessToken },
    );
    expect(override.status).toBe(201);
    expect((await onB()).starts).toEqual(['16:00', '16:30']);
    expect(await warm()).toEqual(['16:00', '16:30']);
    expect((await a.http.delete(`/v1/availability/overrides/${override.body.override.id}`, { token: org.owner.accessToken })).status).toBe(
      204,
    );
    expect((await onB()).starts.length).toBeGreaterThan(2);
  });

  it('the event type (its duration) and its deletion', async () => {
    const id = await createEventType(a, { token: org.owner.accessToken }, { durationMinutes: 60 });
    expect((await warm(id, '2027-03-04')).length).toBe(8);
    expect((await a.http.patch(`/v1/event-types/${id}`, { durationMinutes: 120 }, { token: org.owner.accessToken })).status).toBe(200);
    expect((await onB(id, '2027-03-04')).starts).toEqual(['09:00', '11:00', '13:00', '15:00']);
    expect((await a.http.delete(`/v1/event-types/${id}`, { token: org.owner.accessToken })).status).toBe(204);
    const gone = await b.http.get(`/v1/availability?eventTypeId=${id}&start=2027-03-02&end=2027-03-02`, key());
    expect(gone.status).toBe(409);
  });

  it('a membership: a removed host leaves the round robin at once', async () => {
    const member: AddedMember = await addMember(a, org.owner.accessToken, org.owner.organizationId, 'member');
    await putSchedule(a, { token: member.accessToken }, 'UTC', WEEKDAYS_9_TO_5);
    const id = await createEventType(
      a,
      { token: org.owner.accessToken },
      {
        schedulingType: 'round_robin',
        hostUserIds: [org.owner.userId, member.userId],
      },
    );
    await a.http.post('/v1/bookings', bookingBody(id, '2027-03-03T09:00:00Z'), key()); // the owner was booked: the member comes first
    expect((await onB(id)).hosts).toContain(member.userId);
    await warm(id);
    const removed = await a.http.delete(`/v1/organizations/${org.owner.organizationId}/members/${member.memberId}`, {
      token: org.owner.accessToken,
    });
    expect(removed.status).toBe(204);
    expect(new Set((await onB(id)).hosts)).toEqual(new Set([org.owner.userId]));
  });

  it('a calendar sync', async () => {
    feedBody = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//cache//EN', 'END:VCALENDAR', ''].join('\r\n');
    const connected = await a.http.post(
      '/v1/calendars',
      { type: 'ics', url: `http://127.0.0.1:${(feed.address() as AddressInfo).port}/c.ics` },
      {
        token: org.owner.accessToken,
      },
    );
    expect(connected.status).toBe(201);
    expect(await warm()).toContain('14:00');
    feedBody = feedBody.replace(
      'END:VCALENDAR',
      ['BEGIN:VEVENT', 'UID:x@cache', 'DTSTART:20270302T140000Z', 'DTEND:20270302T150000Z', 'END:VEVENT', 'END:VCALENDAR'].join('\r\n'),
    );
    expect(
      (await a.http.post(`/v1/calendars/${connected.body.calendar.id}/sync`, undefined, { token: org.owner.accessToken })).status,
    ).toBe(202);
    // The sync runs on A's worker; from the moment it commits, B answers with it.
    await waitFor(
      async () =>
        (await a.http.get(`/v1/calendars/${connected.body.calendar.id}`, { token: org.owner.accessToken })).body.calendar.busyCount === 1
          ? true
          : undefined,
      10_000,
      'the sync',
    );
    const after = await onB();
    expect(after.cache).toBe('availability; fwd=miss');
    expect(after.starts).not.toContain('14:00');
    expect(after.starts).not.toContain('14:30');
    // Blocking switched off: the same busy time no longer counts.
    await warm();
    await a.http.patch(`/v1/calendars/${connected.body.calendar.id}`, { blocksAvailability: false }, { token: org.owner.accessToken });
    expect((await onB()).starts).toContain('14:00');
  });

  it('a warm entry follows the clock past the minimum notice, and test mode has its own answers', async () => {
    const id = await createEventType(a, { token: org.owner.accessToken }, { durationMinutes: 60, minimumNoticeHours: 1 });
    a.clock.set('2027-03-04T07:30:00Z');
    expect(await warm(id, '2027-03-04')).toEqual(['09:00', '10:00', '11:00', '12:00', '13:00', '14:00', '15:00', '16:00']);
    a.clock.set('2027-03-04T08:00:00Z'); // 09:00 is exactly one hour away: still bookable
    expect(await onB(id, '2027-03-04')).toMatchObject({ cache: 'availability; hit' });
    a.clock.set('2027-03-04T08:00:00.001Z');
    const moved = await onB(id, '2027-03-04');
    expect(moved).toMatchObject({ cache: 'availability; fwd=miss' });
    expect(moved.starts[0]).toBe('10:00');

    const live = await onB(id, '2027-03-04');
    const test = await b.http.get(`/v1/availability?eventTypeId=${id}&start=2027-03-04&end=2027-03-04`, { apiKey: org.testKey });
    expect(test.headers.get('cache-status')).toBe('availability; fwd=miss');
    expect(test.body.slots.length).toBe(live.starts.length);
    a.clock.set('2027-03-01T06:00:00Z');
  });
});
