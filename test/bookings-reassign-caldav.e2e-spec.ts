import { startTestApp, type TestApp } from './support/app.js';
import { bookingBody, bookingOrg, WEEKDAYS_9_TO_5, type BookingOrg } from './support/bookings.js';
import { addMember, type AddedMember } from './support/factories.js';
import { waitFor } from './support/process.js';
import { RadicaleServer } from './support/radicale.js';
import { putSchedule } from './support/scheduling.js';

const OWNER_USER = 'ann';
const OWNER_PASSWORD = 'radicale-pass-Owner-3';
const MEMBER_USER = 'bo';
const MEMBER_PASSWORD = 'radicale-pass-Member-5';

/** A reassignment moves the host's calendar write-back (contract § 17): off the old host's CalDAV calendar, onto the new one's. */
describe('bookings: reassignment moves the calendar write-back', () => {
  let t: TestApp;
  let dav: RadicaleServer;
  let org: BookingOrg;
  let member: AddedMember;

  /** Connects a CalDAV account for `who` with its one calendar as the write-back destination. */
  async function connect(who: { token: string }, username: string, password: string): Promise<void> {
    const connected = await t.http.post('/v1/calendars', { type: 'caldav', url: dav.url('/'), username, password }, who);
    expect(connected.status).toBe(201);
    const calendar = connected.body.calendar.calendars[0].id;
    const destination = await t.http.patch(
      `/v1/calendars/${connected.body.calendar.id}`,
      { calendars: [{ id: calendar, isDestination: true }] },
      who,
    );
    expect(destination.status).toBe(200);
  }

  beforeAll(async () => {
    dav = await RadicaleServer.start({ [OWNER_USER]: OWNER_PASSWORD, [MEMBER_USER]: MEMBER_PASSWORD });
    await dav.makeCalendar(OWNER_USER, OWNER_PASSWORD, `/${OWNER_USER}/work/`, 'Work');
    await dav.makeCalendar(MEMBER_USER, MEMBER_PASSWORD, `/${MEMBER_USER}/team/`, 'Team');
    t = await startTestApp();
    org = await bookingOrg(t);
    member = await addMember(t, org.owner.accessToken, org.owner.organizationId, 'member');
    await putSchedule(t, { token: member.accessToken }, 'UTC', WEEKDAYS_9_TO_5);
    await connect({ token: org.owner.accessToken }, OWNER_USER, OWNER_PASSWORD);
    await connect({ token: member.accessToken }, MEMBER_USER, MEMBER_PASSWORD);
  }, 120_000);

  afterAll(async () => {
    await t?.close();
    await dav?.stop();
  });

  it('removes the booking from the old host’s calendar and writes it into the new host’s', async () => {
    const booked = await t.http.post('/v1/bookings', bookingBody(org.eventTypeId, '2027-03-05T13:00:00Z'), { apiKey: org.apiKey });
    expect(booked.status).toBe(201);
    const id = booked.body.booking.id;
    const copies = (): Promise<number[]> =>
      Promise.all([
        dav.get(OWNER_USER, OWNER_PASSWORD, `/${OWNER_USER}/work/${id}.ics`).then((res) => res.status),
        dav.get(MEMBER_USER, MEMBER_PASSWORD, `/${MEMBER_USER}/team/${id}.ics`).then((res) => res.status),
      ]);
    await waitFor(async () => ((await copies())[0] === 200 ? true : undefined), 15_000, 'the old host’s copy');

    const moved = await t.http.post(`/v1/bookings/${id}/reassign`, { hostUserId: member.userId }, { apiKey: org.apiKey });
    expect(moved.status).toBe(200);
    await waitFor(
      async () => {
        const [old, now] = await copies();
        return old === 404 && now === 200 ? true : undefined;
      },
      15_000,
      'the copy moved to the new host',
    );
    const copy = await dav.get(MEMBER_USER, MEMBER_PASSWORD, `/${MEMBER_USER}/team/${id}.ics`);
    expect(copy.text).toContain(`UID:${id}`);
    expect(copy.text).toContain('DTSTART:20270305T130000Z');
  });
});
