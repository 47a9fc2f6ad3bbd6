import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestApp, type TestApp } from './support/app.js';
import { bookingBody } from './support/bookings.js';
import { addMember, createApiKey, registerOwner, type AddedMember, type RegisteredOwner } from './support/factories.js';
import { check, createEventType, putSchedule, slots } from './support/scheduling.js';

/** One busy hour per host, served as each host's own ICS feed. */
const BUSY: Record<string, [string, string]> = {
  '/owner.ics': ['20270301T100000Z', '20270301T110000Z'],
  '/alice.ics': ['20270301T110000Z', '20270301T120000Z'],
};

function feed([start, end]: [string, string]): string {
  return [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//teams//EN',
    'BEGIN:VEVENT',
    'UID:busy@teams',
    `DTSTART:${start}`,
    `DTEND:${end}`,
    'END:VEVENT',
    'END:VCALENDAR',
    '',
  ].join('\r\n');
}

/** Calendar conflicts in every scheduling type and on every path that decides a time (api-rules.md § Calendars). */
describe('calendars: conflicts for one_on_one, round robin and collective', () => {
  let t: TestApp;
  let server: Server;
  let owner: RegisteredOwner;
  let alice: AddedMember;
  let key: { apiKey: string };

  beforeAll(async () => {
    server = createServer((req, res) => {
      const busy = BUSY[req.url ?? ''];
      if (busy) res.writeHead(200, { 'content-type': 'text/calendar' }).end(feed(busy));
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    t = await startTestApp();
    t.clock.set('2027-02-22T00:00:00Z');
    owner = await registerOwner(t.http);
    alice = await addMember(t, owner.accessToken, owner.organizationId, 'member');
    key = await createApiKey(t.http, owner.accessToken, { rateLimitPerMinute: 10000 });
    for (const userId of [owner.userId, alice.userId]) {
      await putSchedule(t, key, 'UTC', [{ dayOfWeek: 1, slots: [{ startTime: '09:00', endTime: '12:00' }] }], userId);
    }
    // Owner busy 10:00–11:00, alice 11:00–12:00 on Monday 2027-03-01, each in its own calendar.
    for (const [who, path] of [
      [owner.accessToken, '/owner.ics'],
      [alice.accessToken, '/alice.ics'],
    ] as const) {
      const res = await t.http.post('/v1/calendars', { type: 'ics', url: `${base}${path}` }, { token: who });
      expect(res.body.calendar).toMatchObject({ status: 'ok', busyCount: 1 });
    }
  });

  afterAll(async () => {
    await t.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const byStart = async (eventTypeId: string): Promise<Record<string, string>> =>
    Object.fromEntries(
      (await slots(t, key, eventTypeId, '2027-03-01', '2027-03-01')).map((slot) => [slot.start.slice(11, 16), slot.hostUserId]),
    );

  it('round robin skips the host whose calendar is busy, in availability and in the booking it makes', async () => {
    const id = await createEventType(t, key, { schedulingType: 'round_robin', hostUserIds: [owner.userId, alice.userId] });
    expect(await byStart(id)).toEqual({ '09:00': owner.userId, '10:00': alice.userId, '11:00': owner.userId });
    expect(await check(t, key, id, '2027-03-01T10:00:00Z')).toEqual({ available: true });
    const booked = await t.http.post('/v1/bookings', bookingBody(id, '2027-03-01T10:00:00Z'), key);
    expect(booked.status).toBe(201);
    expect(booked.body.booking.hostUserIds).toEqual([alice.userId]);
  });

  it('collective offers only times free in every host’s calendar, and refuses the others with calendar_conflict', async () => {
    const id = await createEventType(t, key, { schedulingType: 'collective', hostUserIds: [owner.userId, alice.userId] });
    // 10:00: the owner's calendar (and alice's round-robin booking); 11:00: alice's calendar alone.
    expect(Object.keys(await byStart(id))).toEqual(['09:00']);
    expect(await check(t, key, id, '2027-03-01T11:00:00Z')).toEqual({ available: false, reason: 'calendar_conflict' });
    const res = await t.http.post('/v1/bookings', bookingBody(id, '2027-03-01T11:00:00Z'), key);
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: 'SLOT_UNAVAILABLE', details: [{ field: 'startTime', message: 'calendar_conflict' }] });
    expect((await t.http.post('/v1/bookings', bookingBody(id, '2027-03-01T10:00:00Z'), key)).status).toBe(409);
  });

  it('one_on_one: a reschedule onto a busy calendar time is refused with calendar_conflict naming newStartTime', async () => {
    const id = await createEventType(t, key, { hostUserIds: [owner.userId] });
    const booked = (await t.http.post('/v1/bookings', bookingBody(id, '2027-03-01T09:00:00Z'), key)).body.booking;
    const moved = await t.http.post(`/v1/bookings/${booked.id}/reschedule`, { newStartTime: '2027-03-01T10:00:00Z' }, key);
    expect(moved.status).toBe(409);
    expect(moved.body).toMatchObject({ code: 'SLOT_UNAVAILABLE', details: [{ field: 'newStartTime', message: 'calendar_conflict' }] });
    const free = await t.http.post(`/v1/bookings/${booked.id}/reschedule`, { newStartTime: '2027-03-01T11:00:00Z' }, key);
    expect(free.status).toBe(200);
  });
});
