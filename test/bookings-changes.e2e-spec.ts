import { startTestApp, type TestApp } from './support/app.js';
import { bookingBody, bookingOrg, WEEKDAYS_9_TO_5 as WEEKDAYS } from './support/bookings.js';
import { addMember } from './support/factories.js';
import { createEventType, putSchedule } from './support/scheduling.js';

describe('bookings: cancel, reschedule, round robin, collective, test mode', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('cancels with the attendee token; the slot is free at once; wrong or missing token → 401', async () => {
    const org = await bookingOrg(t);
    const booked = await t.http.post('/v1/bookings', bookingBody(org.eventTypeId, '2027-03-02T10:00:00Z'), { apiKey: org.apiKey });
    const { id, confirmationToken } = booked.body.booking;
    const missing = await t.http.post(`/v1/bookings/${id}/cancel`, {});
    expect(missing.status).toBe(401);
    expect(missing.body.code).toBe('UNAUTHORIZED');
    expect((await t.http.post(`/v1/bookings/${id}/cancel`, { token: 'x'.repeat(32) })).status).toBe(401);
    const cancelled = await t.http.post(`/v1/bookings/${id}/cancel`, { token: confirmationToken, reason: 'Sick' });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.booking).toEqual({
      id,
      status: 'cancelled',
      cancelledAt: expect.any(String),
      cancellationReason: 'Sick',
      cancelledBy: 'attendee',
    });
    const again = await t.http.post(`/v1/bookings/${id}/cancel`, { token: confirmationToken });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('BOOKING_NOT_ACTIVE');
    expect((await t.http.post('/v1/bookings', bookingBody(org.eventTypeId, '2027-03-02T10:00:00Z'), { apiKey: org.apiKey })).status).toBe(
      201,
    );
  });

  it('answers 401 to neither credentials nor token, whatever the booking id', async () => {
    const org = await bookingOrg(t);
    const booked = await t.http.post('/v1/bookings', bookingBody(org.eventTypeId, '2027-03-02T10:00:00Z'), { apiKey: org.apiKey });
    const unknown = `bkg_${'a'.repeat(24)}`;
    for (const id of [booked.body.booking.id, unknown, 'nonsense']) {
      for (const [action, body] of [
        ['cancel', {}],
        ['reschedule', { newStartTime: '2027-03-02T11:00:00Z' }],
      ] as const) {
        const res = await t.http.post(`/v1/bookings/${id}/${action}`, body, { headers: { 'idempotency-key': `k-${action}` } });
        expect([id, action, res.status, res.body.code]).toEqual([id, action, 401, 'UNAUTHORIZED']);
      }
    }
  });

  it('cancels as the host with an API key, and refuses a booking that has started', async () => {
    const org = await bookingOrg(t);
    const a = await t.http.post('/v1/bookings', bookingBody(org.eventTypeId, '2027-03-02T10:00:00Z'), { apiKey: org.apiKey });
    const b = await t.http.post('/v1/bookings', bookingBody(org.eventTypeId, '2027-03-02T11:00:00Z'), { apiKey: org.apiKey });
    const host = await t.http.post(`/v1/bookings/${a.body.booking.id}/cancel`, {}, { apiKey: org.apiKey });
    expect(host.body.booking.cancelledBy).toBe('host');
    t.clock.set('2027-03-02T11:00:00Z');
    const started = await t.http.post(`/v1/bookings/${b.body.booking.id}/cancel`, { token: b.body.booking.confirmationToken });
    expect(started.status).toBe(409);
    expect(started.body.code).toBe('BOOKING_IN_PAST');
  });

  it('reschedules atomically: original cancelled and linked, new booking with a new token; the old token dies', async () => {
    const org = await bookingOrg(t);
    const booked = await t.http.post('/v1/bookings', bookingBody(org.eventTypeId, '2027-03-02T10:00:00Z'), { apiKey: org.apiKey });
    const original = booked.body.booking;
    // Overlapping its own time is allowed: the original does not block the new one.
    const moved = await t.http.post(`/v1/bookings/${original.id}/reschedule`, {
      token: original.confirmationToken,
      newStartTime: '2027-03-02T10:00:00Z',
    });
    expect(moved.status).toBe(200);
    expect(moved.body.booking).toEqual({
      id: expect.stringMatching(/^bkg_/),
      previousBookingId: original.id,
      startsAt: '2027-03-02T10:00:00.000Z',
      endsAt: '2027-03-02T10:30:00.000Z',
      status: 'confirmed',
      hostUserId: org.owner.userId,
      confirmationToken: expect.any(String),
      attendeeCanCancelUntil: '2027-03-02T10:00:00.000Z',
      attendeeCanRescheduleUntil: '2027-03-02T10:00:00.000Z',
    });
    expect(moved.body.booking.confirmationToken).not.toBe(original.confirmationToken);
    const old = (await t.http.get(`/v1/bookings/${original.id}`, { apiKey: org.apiKey })).body.booking;
    expect(old).toMatchObject({
      status: 'cancelled',
      cancellationReason: 'rescheduled',
      rescheduledToBookingId: moved.body.booking.id,
      cancelledBy: 'attendee',
    });
    const fresh = (await t.http.get(`/v1/bookings/${moved.body.booking.id}`, { apiKey: org.apiKey })).body.booking;
    expect(fresh).toMatchObject({ previousBookingId: original.id, status: 'confirmed', attendee: original.attendee });
    // The original's token: 401 on the new booking, 409 on the cancelled original.
    expect((await t.http.post(`/v1/bookings/${moved.body.booking.id}/cancel`, { token: original.confirmationToken })).status).toBe(401);
    expect((await t.http.post(`/v1/bookings/${original.id}/cancel`, { token: original.confirmationToken })).body.code).toBe(
      'BOOKING_NOT_ACTIVE',
    );
    const second = await t.http.post(`/v1/bookings/${moved.body.booking.id}/reschedule`, {
      token: moved.body.booking.confirmationToken,
      newStartTime: '2027-03-03T09:00:00',
      timezone: 'UTC',
    });
    expect(second.status).toBe(200);
  });

  it('leaves the original unchanged when the new time is not bookable', async () => {
    const org = await bookingOrg(t);
    const a = await t.http.post('/v1/bookings', bookingBody(org.eventTypeId, '2027-03-02T10:00:00Z'), { apiKey: org.apiKey });
    await t.http.post('/v1/bookings', bookingBody(org.eventTypeId, '2027-03-02T12:00:00Z'), { apiKey: org.apiKey });
    const res = await t.http.post(
      `/v1/bookings/${a.body.booking.id}/reschedule`,
      { newStartTime: '2027-03-02T12:00:00Z' },
      { apiKey: org.apiKey },
    );
    expect(res.status).toBe(409);
    expect(res.body.details).toEqual([{ field: 'newStartTime', message: 'already_booked' }]);
    expect((await t.http.get(`/v1/bookings/${a.body.booking.id}`, { apiKey: org.apiKey })).body.booking.status).toBe('confirmed');
    const bad = await t.http.post(`/v1/bookings/${a.body.booking.id}/reschedule`, { newStartTime: 'soon' }, { apiKey: org.apiKey });
    expect(bad.status).toBe(400);
  });

  it('round robin books the host availability shows, and keeps the host on reschedule when free', async () => {
    const org = await bookingOrg(t);
    const a = await addMember(t, org.owner.accessToken, org.owner.organizationId, 'member');
    await putSchedule(t, { token: a.accessToken }, 'UTC', WEEKDAYS);
    const rr = await createEventType(
      t,
      { token: org.owner.accessToken },
      {
        durationMinutes: 30,
        schedulingType: 'round_robin',
        hostUserIds: [org.owner.userId, a.userId],
      },
    );
    const shown = (await t.http.get(`/v1/availability?eventTypeId=${rr}&start=2027-03-02&end=2027-03-02`, { apiKey: org.apiKey })).body
      .slots;
    const first = await t.http.post('/v1/bookings', bookingBody(rr, shown[0].start), { apiKey: org.apiKey });
    expect(first.body.booking.hostUserId).toBe(shown[0].hostUserId);
    const next = (await t.http.get(`/v1/availability?eventTypeId=${rr}&start=2027-03-02&end=2027-03-02`, { apiKey: org.apiKey })).body
      .slots[0];
    expect(next.hostUserId).not.toBe(first.body.booking.hostUserId);
    const second = await t.http.post('/v1/bookings', bookingBody(rr, next.start), { apiKey: org.apiKey });
    expect(second.body.booking.hostUserId).toBe(next.hostUserId);
    const moved = await t.http.post(
      `/v1/bookings/${first.body.booking.id}/reschedule`,
      { newStartTime: '2027-03-04T15:00:00Z' },
      { apiKey: org.apiKey },
    );
    expect(moved.body.booking.hostUserId).toBe(first.body.booking.hostUserId);
  });

  it('collective bookings occupy every host', async () => {
    const org = await bookingOrg(t);
    const a = await addMember(t, org.owner.accessToken, org.owner.organizationId, 'member');
    await putSchedule(t, { token: a.accessToken }, 'UTC', WEEKDAYS);
    const team = await createEventType(
      t,
      { token: org.owner.accessToken },
      {
        durationMinutes: 30,
        schedulingType: 'collective',
        hostUserIds: [org.owner.userId, a.userId],
      },
    );
    const solo = await createEventType(t, { token: org.owner.accessToken }, { durationMinutes: 30, hostUserIds: [a.userId] });
    const booked = await t.http.post('/v1/bookings', bookingBody(team, '2027-03-02T10:00:00Z'), { apiKey: org.apiKey });
    expect(booked.status).toBe(201);
    expect(booked.body.booking).toMatchObject({ hostUserId: org.owner.userId, hostUserIds: [org.owner.userId, a.userId] });
    const blocked = await t.http.post('/v1/bookings', bookingBody(solo, '2027-03-02T10:00:00Z'), { apiKey: org.apiKey });
    expect(blocked.status).toBe(409);
    expect(blocked.body.details[0].message).toBe('already_booked');
  });

  it('shows a collective booking’s hosts in one order on create, detail and list', async () => {
    const org = await bookingOrg(t);
    const members = [];
    for (let i = 0; i < 3; i++) {
      const member = await addMember(t, org.owner.accessToken, org.owner.organizationId, 'member');
      await putSchedule(t, { token: member.accessToken }, 'UTC', WEEKDAYS);
      members.push(member.userId);
    }
    // After the first (primary) host, the others in reverse alphabetical order: not the order ids sort in.
    const hostUserIds = [members[0], ...members.slice(1).sort().reverse()];
    const team = await createEventType(
      t,
      { token: org.owner.accessToken },
      { durationMinutes: 30, schedulingType: 'collective', hostUserIds },
    );
    const booked = await t.http.post('/v1/bookings', bookingBody(team, '2027-03-02T10:00:00Z'), { apiKey: org.apiKey });
    expect(booked.body.booking.hostUserIds).toEqual(hostUserIds);
    const detail = await t.http.get(`/v1/bookings/${booked.body.booking.id}`, { apiKey: org.apiKey });
    expect(detail.body.booking.hostUserIds).toEqual(hostUserIds);
    const list = await t.http.get(`/v1/bookings?eventTypeId=${team}`, { apiKey: org.apiKey });
    expect(list.body.bookings.map((b: { hostUserIds: string[] }) => b.hostUserIds)).toEqual([hostUserIds]);
  });

  it('test and live bookings never see or block each other', async () => {
    const org = await bookingOrg(t);
    const live = await t.http.post('/v1/bookings', bookingBody(org.eventTypeId, '2027-03-02T10:00:00Z'), { apiKey: org.apiKey });
    const test = await t.http.post('/v1/bookings', bookingBody(org.eventTypeId, '2027-03-02T10:00:00Z'), { apiKey: org.testKey });
    expect([live.status, test.status]).toEqual([201, 201]);
    expect([live.body.booking.livemode, test.body.booking.livemode]).toEqual([true, false]);
    expect((await t.http.post('/v1/bookings', bookingBody(org.eventTypeId, '2027-03-02T10:00:00Z'), { apiKey: org.testKey })).status).toBe(
      409,
    );
    expect((await t.http.get(`/v1/bookings/${test.body.booking.id}`, { apiKey: org.apiKey })).status).toBe(404);
    expect((await t.http.get(`/v1/bookings/${live.body.booking.id}`, { apiKey: org.testKey })).status).toBe(404);
    expect((await t.http.get(`/v1/bookings/${test.body.booking.id}`, { token: org.owner.accessToken })).status).toBe(404);
    expect((await t.http.get('/v1/bookings', { apiKey: org.testKey })).body.totalCount).toBe(1);
    const testSlots = (
      await t.http.get(`/v1/availability?eventTypeId=${org.eventTypeId}&start=2027-03-02&end=2027-03-02`, { apiKey: org.testKey })
    ).body.slots;
    expect(testSlots.map((s: { start: string }) => s.start)).not.toContain('2027-03-02T10:00:00.000Z');
  });
});
