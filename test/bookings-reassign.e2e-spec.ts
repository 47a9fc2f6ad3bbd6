import { startTestApp, type TestApp } from './support/app.js';
import { bookingBody } from './support/bookings.js';
import { createApiKey, inviteMember, registerOwner, type RegisteredOwner } from './support/factories.js';
import { createEventType, putSchedule, slots, type Credential } from './support/scheduling.js';
import { SmtpTestServer, type ReceivedMail } from './support/smtp.js';
import { createWebhook, WebhookReceiver } from './support/webhooks.js';

interface Joined {
  email: string;
  userId: string;
  memberId: string;
  who: Credential;
}

describe('bookings: reassignment (contract § 17)', () => {
  let smtp: SmtpTestServer;
  let receiver: WebhookReceiver;
  let a: TestApp;
  let b: TestApp;
  let owner: RegisteredOwner;
  let alice: Joined;
  let bob: Joined;
  let carol: Joined;
  let key: Credential;
  const mailTo = (email: string, subject: RegExp) => (mail: ReceivedMail) =>
    mail.envelope.to.includes(email) && subject.test(mail.parsed.subject ?? '');
  const reassign = (id: string, body: Record<string, unknown>, who: Credential = key, app: TestApp = a) =>
    app.http.post(`/v1/bookings/${id}/reassign`, body, who);
  const book = async (eventTypeId: string, startTime: string, email = 'guest@example.com') => {
    const res = await a.http.post('/v1/bookings', bookingBody(eventTypeId, startTime, { attendee: { email, firstName: 'Gus' } }), key);
    if (res.status !== 201) throw new Error(`booking failed: ${res.status} ${res.text}`);
    return res.body.booking;
  };

  /** A member who accepted the invitation mailed over SMTP. */
  async function join(role: string): Promise<Joined> {
    const invited = await inviteMember(a.http, owner.accessToken, owner.organizationId, { role });
    const mail = await smtp.waitForMail((m) => m.envelope.to.includes(invited.email), 10_000);
    const token = /token=([0-9A-Za-z]+)/.exec(mail.parsed.text ?? '')![1];
    const res = await a.http.post('/v1/invitations/accept', { token, password: 'member password 1' });
    if (res.status !== 200) throw new Error(`accept failed: ${res.status} ${res.text}`);
    return { email: invited.email, userId: res.body.member.userId, memberId: res.body.member.id, who: { token: res.body.accessToken } };
  }

  beforeAll(async () => {
    smtp = await SmtpTestServer.start();
    receiver = await WebhookReceiver.start();
    a = await startTestApp({ env: { SMTP_URL: smtp.url } });
    // A second instance on the same database: the race below runs over both.
    b = await startTestApp({ databaseUrl: a.databaseUrl, clock: a.clock, env: { SMTP_URL: smtp.url, RUN_WORKERS: 'false' } });
    a.clock.set('2027-02-22T00:00:00Z');
    owner = await registerOwner(a.http);
    alice = await join('member');
    bob = await join('member');
    carol = await join('member');
    key = await createApiKey(a.http, owner.accessToken, { rateLimitPerMinute: 10000 });
    for (const userId of [owner.userId, alice.userId, bob.userId, carol.userId]) {
      await putSchedule(a, key, 'UTC', [{ dayOfWeek: 1, slots: [{ startTime: '09:00', endTime: '13:00' }] }], userId);
    }
    const hook = await createWebhook(a.http, key as { apiKey: string }, { url: receiver.url('/hook'), events: ['booking.reassigned'] });
    receiver.expectSecret('/hook', hook.secret);
  });
  afterAll(async () => {
    await b.app.close();
    await a.close();
    await receiver.stop();
    await smtp.stop();
  });

  it('gives the booking the named member: 200, same id, token, time and attendee; mails to all three; booking.reassigned', async () => {
    const eventTypeId = await createEventType(a, key, { title: 'Intro call', hostUserIds: [alice.userId] });
    const booking = await book(eventTypeId, '2027-03-01T10:00:00Z', 'ann@example.com');
    const res = await reassign(booking.id, { hostUserId: bob.userId });
    expect(res.status).toBe(200);
    expect(res.body.booking).toMatchObject({
      id: booking.id,
      hostUserId: bob.userId,
      hostUserIds: [bob.userId],
      startsAt: booking.startsAt,
      endsAt: booking.endsAt,
      status: 'confirmed',
      attendee: booking.attendee,
    });
    expect(res.body.booking).not.toHaveProperty('confirmationToken');
    expect((await a.http.get(`/v1/bookings/${booking.id}`, key)).body.booking.hostUserIds).toEqual([bob.userId]);
    // The attendee's token still works.
    const view = await a.http.get(`/v1/public/bookings/${booking.id}`, {
      headers: { authorization: `Token ${booking.confirmationToken}` },
    });
    expect([view.status, view.body.booking.startsAt]).toEqual([200, booking.startsAt]);

    // Alice is free again at 10:00, bob no longer is.
    expect((await slots(a, key, eventTypeId, '2027-03-01', '2027-03-01')).map((slot) => slot.start)).toContain('2027-03-01T10:00:00.000Z');
    const bobs = await createEventType(a, key, { hostUserIds: [bob.userId] });
    expect((await slots(a, key, bobs, '2027-03-01', '2027-03-01')).map((slot) => slot.start)).not.toContain('2027-03-01T10:00:00.000Z');

    const toAttendee = await smtp.waitForMail(mailTo('ann@example.com', /^New host: Intro call/), 10_000);
    expect(toAttendee.parsed.text).toContain(`Booking: ${booking.id}`);
    expect(toAttendee.parsed.text).toContain('Previously hosted by:');
    await smtp.waitForMail(mailTo(bob.email, /^New host: Intro call/), 10_000);
    const toAlice = await smtp.waitForMail(mailTo(alice.email, /^Reassigned: Intro call/), 10_000);
    expect(toAlice.parsed.attachments.some((part) => part.content.toString('utf8').includes('METHOD:CANCEL'))).toBe(true);

    await receiver.waitFor(() => receiver.at('/hook').length >= 1, 10_000, 'booking.reassigned');
    const event = receiver.at('/hook')[0].payload;
    expect(event.type).toBe('booking.reassigned');
    expect(event.data.previousHostUserIds).toEqual([alice.userId]);
    expect(event.data.booking).toMatchObject({ id: booking.id, hostUserId: bob.userId, hostUserIds: [bob.userId] });
    expect(receiver.unverified()).toEqual([]);
  });

  it('refuses a host who is not free by every rule: 409 SLOT_UNAVAILABLE naming hostUserId and the reason', async () => {
    const eventTypeId = await createEventType(a, key, { hostUserIds: [alice.userId], bufferAfterMinutes: 15 });
    const booking = await book(eventTypeId, '2027-03-08T11:00:00Z');
    const carols = await createEventType(a, key, { hostUserIds: [carol.userId] });
    await book(carols, '2027-03-08T11:00:00Z');
    const busy = await reassign(booking.id, { hostUserId: carol.userId });
    expect(busy.status).toBe(409);
    expect(busy.body).toMatchObject({ code: 'SLOT_UNAVAILABLE', details: [{ field: 'hostUserId', message: 'already_booked' }] });

    const away = await a.http.post(
      '/v1/out-of-office',
      { userId: bob.userId, startsAt: '2027-03-08T00:00:00Z', endsAt: '2027-03-09T00:00:00Z' },
      key,
    );
    expect(away.status).toBe(201);
    expect(away.body.outOfOffice.affectedBookings).toEqual([]);
    const absent = await reassign(booking.id, { hostUserId: bob.userId });
    expect(absent.body).toMatchObject({ code: 'SLOT_UNAVAILABLE', details: [{ field: 'hostUserId', message: 'out_of_office' }] });
    // Alice herself is away: her booking is listed for reassignment.
    const aliceAway = await a.http.post(
      '/v1/out-of-office',
      { userId: alice.userId, startsAt: '2027-03-08T10:00:00Z', endsAt: '2027-03-08T13:00:00Z' },
      key,
    );
    expect(aliceAway.body.outOfOffice.affectedBookings).toEqual([
      { id: booking.id, startsAt: '2027-03-08T11:00:00.000Z', status: 'confirmed' },
    ]);

    await putSchedule(a, key, 'UTC', [{ dayOfWeek: 2, slots: [{ startTime: '09:00', endTime: '13:00' }] }], owner.userId);
    const offHours = await reassign(booking.id, { hostUserId: owner.userId });
    expect(offHours.body).toMatchObject({ code: 'SLOT_UNAVAILABLE', details: [{ field: 'hostUserId', message: 'outside_availability' }] });
    await putSchedule(a, key, 'UTC', [{ dayOfWeek: 1, slots: [{ startTime: '09:00', endTime: '13:00' }] }], owner.userId);
    // Nothing changed.
    expect((await a.http.get(`/v1/bookings/${booking.id}`, key)).body.booking.hostUserIds).toEqual([alice.userId]);
    // The owner (not a host of the event type) may take it.
    const taken = await reassign(booking.id, { hostUserId: owner.userId });
    expect([taken.status, taken.body.booking.hostUserId]).toEqual([200, owner.userId]);
  });

  it('without hostUserId: the next round-robin host by the rotation; none → 409', async () => {
    const roundRobin = await createEventType(a, key, {
      schedulingType: 'round_robin',
      hostUserIds: [alice.userId, bob.userId, carol.userId],
    });
    const booking = await book(roundRobin, '2027-03-15T09:00:00Z');
    expect(booking.hostUserId).toBe(alice.userId);
    // Bob was booked for this event type more recently than carol: carol is next.
    await book(roundRobin, '2027-03-15T10:00:00Z');
    const again = await reassign(booking.id, {});
    expect([again.status, again.body.booking?.hostUserId]).toEqual([200, carol.userId]);

    const oneOnOne = await createEventType(a, key, { hostUserIds: [alice.userId] });
    const single = await book(oneOnOne, '2027-03-15T11:00:00Z');
    const none = await reassign(single.id, {});
    expect(none.status).toBe(409);
    expect(none.body).toMatchObject({ code: 'SLOT_UNAVAILABLE', details: [{ field: 'hostUserId' }] });
  });

  it('who may: members only their own bookings; other organizations’ ids 404; bad input 400; no change of a cancelled or started booking', async () => {
    const eventTypeId = await createEventType(a, key, { hostUserIds: [alice.userId] });
    const booking = await book(eventTypeId, '2027-03-22T09:00:00Z');
    expect((await reassign(booking.id, { hostUserId: carol.userId }, bob.who)).status).toBe(404);
    const own = await reassign(booking.id, { hostUserId: bob.userId }, alice.who);
    expect([own.status, own.body.booking.hostUserId]).toEqual([200, bob.userId]);
    expect((await reassign(booking.id, { hostUserId: bob.userId })).status).toBe(400);

    const other = await registerOwner(a.http);
    expect((await reassign(booking.id, {}, { token: other.accessToken })).status).toBe(404);
    const foreign = await reassign(booking.id, { hostUserId: other.userId });
    expect([foreign.status, foreign.body.code]).toEqual([404, 'NOT_FOUND']);
    const leaving = await join('member');
    await a.http.delete(`/v1/organizations/${owner.organizationId}/members/${leaving.memberId}`, { token: owner.accessToken });
    expect((await reassign(booking.id, { hostUserId: leaving.userId })).status).toBe(404);
    expect((await reassign(booking.id, { hostUserId: 'bob' })).status).toBe(400);
    expect((await reassign(booking.id, { host: carol.userId })).status).toBe(400);
    expect((await reassign('bkg_' + 'A'.repeat(24), { hostUserId: carol.userId })).status).toBe(404);
    const readOnly = await createApiKey(a.http, owner.accessToken, { scopes: ['bookings:read'] });
    expect((await reassign(booking.id, { hostUserId: carol.userId }, { apiKey: readOnly.apiKey })).body.code).toBe('INSUFFICIENT_SCOPE');

    const cancelled = await book(eventTypeId, '2027-03-22T10:00:00Z');
    await a.http.post(`/v1/bookings/${cancelled.id}/cancel`, {}, key);
    expect((await reassign(cancelled.id, { hostUserId: carol.userId })).body.code).toBe('BOOKING_NOT_ACTIVE');
    const soon = await book(eventTypeId, '2027-03-22T11:00:00Z');
    a.clock.set('2027-03-22T11:30:00Z');
    try {
      expect((await reassign(soon.id, { hostUserId: carol.userId })).body.code).toBe('BOOKING_IN_PAST');
    } finally {
      a.clock.set('2027-02-22T00:00:00Z');
    }
  });

  it('a collective booking: a member hands over only its own place; another host’s → 403; the owner’s key names any place', async () => {
    const collective = await createEventType(a, key, { schedulingType: 'collective', hostUserIds: [alice.userId, bob.userId] });
    const booking = await book(collective, '2027-03-01T12:00:00Z');
    expect(booking.hostUserIds).toEqual([alice.userId, bob.userId]);

    // Bob, a member, hands over his own place by default: alice (the first host) stays.
    const own = await reassign(booking.id, { hostUserId: carol.userId }, bob.who);
    expect(own.status).toBe(200);
    expect(own.body.booking).toMatchObject({ hostUserId: alice.userId, hostUserIds: [alice.userId, carol.userId] });
    // Carol may not give away alice's place, and bob is no longer a host of it.
    const others = await reassign(booking.id, { hostUserId: bob.userId, fromHostUserId: alice.userId }, carol.who);
    expect([others.status, others.body.code]).toEqual([403, 'FORBIDDEN']);
    expect((await reassign(booking.id, { hostUserId: owner.userId }, bob.who)).status).toBe(404);
    const explicit = await reassign(booking.id, { hostUserId: bob.userId, fromHostUserId: carol.userId }, carol.who);
    expect(explicit.body.booking?.hostUserIds).toEqual([alice.userId, bob.userId]);

    // Host credentials name any place; the default is the first host.
    const second = await reassign(booking.id, { hostUserId: carol.userId, fromHostUserId: bob.userId });
    expect(second.body.booking?.hostUserIds).toEqual([alice.userId, carol.userId]);
    const first = await reassign(booking.id, { hostUserId: bob.userId });
    expect(first.body.booking).toMatchObject({ hostUserId: bob.userId, hostUserIds: [bob.userId, carol.userId] });

    const notHost = await reassign(booking.id, { hostUserId: alice.userId, fromHostUserId: owner.userId });
    expect([notHost.status, notHost.body.details?.[0]?.field]).toEqual([400, 'fromHostUserId']);
    const nullFrom = await reassign(booking.id, { hostUserId: alice.userId, fromHostUserId: null });
    expect([nullFrom.status, nullFrom.body.details?.[0]?.field]).toEqual([400, 'fromHostUserId']);
    expect((await a.http.get(`/v1/bookings/${booking.id}`, key)).body.booking.hostUserIds).toEqual([bob.userId, carol.userId]);
  });

  it('never double-books the new host: two reassignments onto one member at one time over two instances, one 200 and one 409', async () => {
    const alices = await createEventType(a, key, { hostUserIds: [alice.userId] });
    const carols = await createEventType(a, key, { hostUserIds: [carol.userId] });
    for (let round = 0; round < 3; round++) {
      const start = `2027-03-29T${String(9 + round).padStart(2, '0')}:00:00Z`;
      const first = await book(alices, start);
      const second = await book(carols, start);
      const results = await Promise.all([
        reassign(first.id, { hostUserId: bob.userId }, key, a),
        reassign(second.id, { hostUserId: bob.userId }, key, b),
      ]);
      expect(results.map((res) => res.status).sort()).toEqual([200, 409]);
      const refused = results.find((res) => res.status === 409)!;
      expect(refused.body).toMatchObject({ code: 'SLOT_UNAVAILABLE', details: [{ field: 'hostUserId' }] });
    }
    const bobsDay = (await a.http.get(`/v1/bookings?limit=100`, bob.who)).body.bookings.filter((booking: { startsAt: string }) =>
      booking.startsAt.startsWith('2027-03-29'),
    );
    expect(bobsDay).toHaveLength(3);
  });
});
