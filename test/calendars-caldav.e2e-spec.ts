import { DataSource } from 'typeorm';
import { startTestApp, type TestApp } from './support/app.js';
import { bookingBody, bookingOrg, WEEKDAYS_9_TO_5, type BookingOrg } from './support/bookings.js';
import { addMember } from './support/factories.js';
import { waitFor } from './support/process.js';
import { RadicaleServer } from './support/radicale.js';
import { createEventType, putSchedule } from './support/scheduling.js';

const USER = 'ann';
const PASSWORD = 'radicale-pass-Never-Shown-7';
const SECOND_USER = 'bo';
const SECOND_PASSWORD = 'radicale-pass-Second-9';
/** Outside Latin-1 (the fuzzer found them never sent): Basic credentials are UTF-8 (RFC 7617). */
const UNICODE_USER = 'zoë';
const UNICODE_PASSWORD = 'pässwört-✓-密码';

function ics(...lines: string[]): string {
  return [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//caldav.test//EN',
    'BEGIN:VEVENT',
    'DTSTAMP:20270101T000000Z',
    ...lines,
    'END:VEVENT',
    'END:VCALENDAR',
    '',
  ].join('\r\n');
}

/** A CalDAV account on a real Radicale server blocks the member's slots (api-rules.md § Calendars). */
describe('calendars: CalDAV accounts', () => {
  let t: TestApp;
  let dav: RadicaleServer;
  let org: BookingOrg;
  let auth: { token: string };

  beforeAll(async () => {
    dav = await RadicaleServer.start({ [USER]: PASSWORD, [SECOND_USER]: SECOND_PASSWORD, [UNICODE_USER]: UNICODE_PASSWORD });
    await dav.makeCalendar(UNICODE_USER, UNICODE_PASSWORD, `/${encodeURIComponent(UNICODE_USER)}/home/`, 'Home');
    await dav.makeCalendar(SECOND_USER, SECOND_PASSWORD, `/${SECOND_USER}/team/`, 'Team');
    await dav.makeCalendar(USER, PASSWORD, `/${USER}/work/`, 'Work');
    await dav.makeCalendar(USER, PASSWORD, `/${USER}/personal/`, 'Personal');
    // Weekly on Tuesday 11:00 Berlin (10:00Z before the end of March), the 9th excepted.
    await dav.put(
      USER,
      PASSWORD,
      `/${USER}/work/weekly.ics`,
      ics(
        'UID:weekly@caldav.test',
        'DTSTART;TZID=Europe/Berlin:20270302T110000',
        'DTEND;TZID=Europe/Berlin:20270302T120000',
        'RRULE:FREQ=WEEKLY;COUNT=4',
        'EXDATE;TZID=Europe/Berlin:20270309T110000',
        'SUMMARY:Weekly',
      ),
    );
    await dav.put(
      USER,
      PASSWORD,
      `/${USER}/personal/dentist.ics`,
      ics('UID:dentist@caldav.test', 'DTSTART:20270303T140000Z', 'DTEND:20270303T150000Z'),
    );
    // Written back by this service earlier: not busy for it.
    await dav.put(
      USER,
      PASSWORD,
      `/${USER}/work/own.ics`,
      ics('UID:bkg_0123456789abcdefghijklmn', 'DTSTART:20270304T090000Z', 'DTEND:20270304T093000Z'),
    );
    t = await startTestApp();
    org = await bookingOrg(t);
    auth = { token: org.owner.accessToken };
  }, 120_000);

  afterAll(async () => {
    await t?.close();
    await dav?.stop();
  });

  const check = async (startTime: string): Promise<any> =>
    (await t.http.get(`/v1/availability/check?eventTypeId=${org.eventTypeId}&startTime=${startTime}`, { apiKey: org.apiKey })).body;

  let calendarId: string;

  it('discovers the account’s calendars and blocks their busy times, recurring ones expanded, from the 201', async () => {
    const res = await t.http.post(
      '/v1/calendars',
      { type: 'caldav', url: dav.url('/'), username: USER, password: PASSWORD, name: 'Fastmail' },
      auth,
    );
    expect(res.status).toBe(201);
    calendarId = res.body.calendar.id;
    expect(res.body.calendar).toMatchObject({ type: 'caldav', username: USER, status: 'ok', busyCount: 4, name: 'Fastmail' });
    expect(res.body.calendar.calendars).toEqual(
      expect.arrayContaining([
        { id: expect.stringContaining('/ann/work/'), displayName: 'Work', blocksAvailability: true, isDestination: false },
        { id: expect.stringContaining('/ann/personal/'), displayName: 'Personal', blocksAvailability: true, isDestination: false },
      ]),
    );
    expect(JSON.stringify(res.body)).not.toContain(PASSWORD);
    const [row] = await t.app.get(DataSource).query(`SELECT sealed_password FROM calendar_connections WHERE id = $1`, [calendarId]);
    expect(row.sealed_password).not.toContain(PASSWORD);

    expect(await check('2027-03-02T10:00:00Z')).toEqual({ available: false, reason: 'calendar_conflict' });
    expect(await check('2027-03-09T10:00:00Z')).toEqual({ available: true }); // EXDATE
    expect(await check('2027-03-03T14:00:00Z')).toEqual({ available: false, reason: 'calendar_conflict' });
    expect(await check('2027-03-04T09:00:00Z')).toEqual({ available: true }); // the service's own booking
  });

  it('refuses wrong credentials as the password’s fault, and a server that is not there as the url’s', async () => {
    // The same account twice is CALENDAR_EXISTS whatever the password: another entry URL of the server is a new source.
    const same = await t.http.post(
      '/v1/calendars',
      { type: 'caldav', url: dav.url('/'), username: USER, password: 'wrong-password' },
      auth,
    );
    expect(same.status).toBe(409);
    const wrong = await t.http.post(
      '/v1/calendars',
      { type: 'caldav', url: dav.url(`/${USER}/`), username: USER, password: 'wrong-password' },
      auth,
    );
    expect(wrong.status).toBe(422);
    expect(wrong.body).toMatchObject({ code: 'CALENDAR_UNREACHABLE', details: [{ field: 'password' }] });
    const gone = await t.http.post(
      '/v1/calendars',
      { type: 'caldav', url: 'http://127.0.0.1:1/', username: USER, password: PASSWORD },
      auth,
    );
    expect(gone.status).toBe(422);
    expect(gone.body).toMatchObject({ code: 'CALENDAR_UNREACHABLE', details: [{ field: 'url' }] });
  });

  it('lets a calendar of the account stop blocking and one be the destination', async () => {
    const current = (await t.http.get(`/v1/calendars/${calendarId}`, auth)).body.calendar;
    const personal = current.calendars.find((c: any) => c.displayName === 'Personal').id;
    const work = current.calendars.find((c: any) => c.displayName === 'Work').id;
    const res = await t.http.patch(
      `/v1/calendars/${calendarId}`,
      {
        calendars: [
          { id: personal, blocksAvailability: false },
          { id: work, isDestination: true },
        ],
      },
      auth,
    );
    expect(res.status).toBe(200);
    expect(res.body.calendar.calendars).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: personal, blocksAvailability: false, isDestination: false }),
        expect.objectContaining({ id: work, blocksAvailability: true, isDestination: true }),
      ]),
    );
    await waitFor(
      async () => ((await check('2027-03-03T14:00:00Z')).available ? true : undefined),
      10_000,
      'the personal calendar to stop blocking',
    );
    expect(await check('2027-03-02T10:00:00Z')).toEqual({ available: false, reason: 'calendar_conflict' });

    const unknown = await t.http.patch(`/v1/calendars/${calendarId}`, { calendars: [{ id: 'http://elsewhere/x/' }] }, auth);
    expect(unknown.status).toBe(400);
    expect(unknown.body.details[0].field).toBe('calendars[0].id');
  });

  it('writes live confirmed bookings into the destination calendar and removes them when cancelled; test mode never', async () => {
    const written = (id: string): Promise<{ status: number; text: string }> => dav.get(USER, PASSWORD, `/${USER}/work/${id}.ics`);
    // A meeting link of its own per booking (api-rules.md § Reminders) reaches the calendar too.
    await t.http.patch(`/v1/event-types/${org.eventTypeId}`, { location: 'https://meet.example/r-{bookingId}' }, { apiKey: org.apiKey });
    const live = await t.http.post('/v1/bookings', bookingBody(org.eventTypeId, '2027-03-05T13:00:00Z'), { apiKey: org.apiKey });
    expect(live.status).toBe(201);
    const id = live.body.booking.id;
    const object = await waitFor(
      async () => {
        const res = await written(id);
        return res.status === 200 ? res.text : undefined;
      },
      15_000,
      'the booking in the destination calendar',
    );
    expect(object).toContain(`UID:${id}`);
    expect(object).toContain('DTSTART:20270305T130000Z');
    expect(object).toContain('attendee@example.com');
    expect(object.replace(/\r?\n[ \t]/g, '')).toContain(`LOCATION:https://meet.example/r-${id}`);
    await t.http.patch(`/v1/event-types/${org.eventTypeId}`, { location: null }, { apiKey: org.apiKey });
    // The copy is the service's own: it does not block the booking's host a second time.
    await t.http.post(`/v1/calendars/${calendarId}/sync`, undefined, auth);

    const test = await t.http.post('/v1/bookings', bookingBody(org.eventTypeId, '2027-03-05T14:00:00Z'), { apiKey: org.testKey });
    expect(test.status).toBe(201);

    expect((await t.http.post(`/v1/bookings/${id}/cancel`, { reason: 'moved' }, { apiKey: org.apiKey })).status).toBe(200);
    await waitFor(async () => ((await written(id)).status === 404 ? true : undefined), 15_000, 'the booking removed from the calendar');
    expect((await written(test.body.booking.id)).status).toBe(404);
    const writes = await t.app.get(DataSource).query(`SELECT booking_id, action, status FROM calendar_writes ORDER BY created_at, id`);
    expect(writes).toEqual([
      { booking_id: id, action: 'put', status: 'done' },
      { booking_id: id, action: 'delete', status: 'done' },
    ]);
  });

  it('writes a collective booking into every host’s destination, and removes it from each on cancel', async () => {
    const member = await addMember(t, org.owner.accessToken, org.owner.organizationId, 'member');
    await putSchedule(t, { token: member.accessToken }, 'UTC', WEEKDAYS_9_TO_5);
    const connected = await t.http.post(
      '/v1/calendars',
      { type: 'caldav', url: dav.url('/'), username: SECOND_USER, password: SECOND_PASSWORD },
      { token: member.accessToken },
    );
    expect(connected.status).toBe(201);
    const team = connected.body.calendar.calendars[0].id;
    const destination = await t.http.patch(
      `/v1/calendars/${connected.body.calendar.id}`,
      { calendars: [{ id: team, isDestination: true }] },
      { token: member.accessToken },
    );
    expect(destination.status).toBe(200);
    const eventTypeId = await createEventType(
      t,
      { apiKey: org.apiKey },
      { schedulingType: 'collective', hostUserIds: [org.owner.userId, member.userId] },
    );

    const booked = await t.http.post('/v1/bookings', bookingBody(eventTypeId, '2027-03-05T15:00:00Z'), { apiKey: org.apiKey });
    expect(booked.status).toBe(201);
    const id = booked.body.booking.id;
    const copies = (): Promise<number[]> =>
      Promise.all([
        dav.get(USER, PASSWORD, `/${USER}/work/${id}.ics`).then((res) => res.status),
        dav.get(SECOND_USER, SECOND_PASSWORD, `/${SECOND_USER}/team/${id}.ics`).then((res) => res.status),
      ]);
    await waitFor(async () => ((await copies()).every((status) => status === 200) ? true : undefined), 15_000, 'both hosts’ copies');
    expect((await dav.get(SECOND_USER, SECOND_PASSWORD, `/${SECOND_USER}/team/${id}.ics`)).text).toContain('DTSTART:20270305T150000Z');

    expect((await t.http.post(`/v1/bookings/${id}/cancel`, {}, { apiKey: org.apiKey })).status).toBe(200);
    await waitFor(async () => ((await copies()).every((status) => status === 404) ? true : undefined), 15_000, 'both copies removed');
  });

  it('sends usernames and passwords outside Latin-1 as UTF-8, and refuses a bad URL with 400 whatever the credentials', async () => {
    const connected = await t.http.post(
      '/v1/calendars',
      { type: 'caldav', url: dav.url('/'), username: UNICODE_USER, password: UNICODE_PASSWORD, name: 'Zoë' },
      auth,
    );
    expect(connected.status).toBe(201);
    expect(connected.body.calendar.status).toBe('ok');
    expect((await t.http.delete(`/v1/calendars/${connected.body.calendar.id}`, auth)).status).toBe(204);
    const wrong = await t.http.post(
      '/v1/calendars',
      { type: 'caldav', url: dav.url('/'), username: UNICODE_USER, password: 'pässwört-✗' },
      auth,
    );
    expect(wrong.status).toBe(422);
    expect(wrong.body.details[0].field).toBe('password');
    const badUrl = await t.http.post(
      '/v1/calendars',
      { type: 'caldav', url: 'ftp://example.com/', username: UNICODE_USER, password: UNICODE_PASSWORD },
      auth,
    );
    expect(badUrl.status).toBe(400);
  });
});
