import { startTestApp, type TestApp } from './support/app.js';
import { bookingBody, bookingOrg } from './support/bookings.js';
import { createApiKey } from './support/factories.js';

const START = '2027-03-03T10:00:00.000Z';
const policy = (allowed: boolean, noticeMinutes: number) => ({ allowed, noticeMinutes });

describe('attendee change policy (contract § 17)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('defaults to allowed without notice; writes validate the range and merge a partial policy', async () => {
    const org = await bookingOrg(t);
    const auth = { token: org.owner.accessToken };
    const created = await t.http.get(`/v1/event-types/${org.eventTypeId}`, auth);
    expect(created.body.eventType.attendeeCancellation).toEqual(policy(true, 0));
    expect(created.body.eventType.attendeeRescheduling).toEqual(policy(true, 0));
    for (const bad of [
      { attendeeCancellation: { noticeMinutes: 43201 } },
      { attendeeCancellation: { noticeMinutes: -1 } },
      { attendeeRescheduling: { noticeMinutes: 1.5 } },
      { attendeeRescheduling: { allowed: 'no' } },
      { attendeeRescheduling: null },
      { attendeeCancellation: 'strict' },
      { attendeeCancellation: { allowed: true, extra: 1 } },
    ]) {
      const res = await t.http.patch(`/v1/event-types/${org.eventTypeId}`, bad, auth);
      expect([bad, res.status, res.body.code]).toEqual([bad, 400, 'VALIDATION_ERROR']);
    }
    const patched = await t.http.patch(`/v1/event-types/${org.eventTypeId}`, { attendeeCancellation: { noticeMinutes: 43200 } }, auth);
    expect(patched.status).toBe(200);
    expect(patched.body.eventType.attendeeCancellation).toEqual(policy(true, 43200));
    const again = await t.http.patch(`/v1/event-types/${org.eventTypeId}`, { attendeeCancellation: { allowed: false } }, auth);
    expect(again.body.eventType.attendeeCancellation).toEqual(policy(false, 43200));
    const made = await t.http.post(
      '/v1/event-types',
      { title: 'Strict', slug: 'strict', durationMinutes: 30, attendeeRescheduling: { noticeMinutes: 60 } },
      auth,
    );
    expect(made.status).toBe(201);
    expect(made.body.eventType.attendeeRescheduling).toEqual(policy(true, 60));
    expect(made.body.eventType.attendeeCancellation).toEqual(policy(true, 0));
  });

  it('refuses a late cancel and reschedule with the token (409 CHANGE_NOT_ALLOWED, nothing changes); the host is never bound', async () => {
    const org = await bookingOrg(t, {
      attendeeCancellation: { allowed: true, noticeMinutes: 1440 },
      attendeeRescheduling: { allowed: true, noticeMinutes: 120 },
    });
    const booked = await t.http.post('/v1/bookings', bookingBody(org.eventTypeId, START), { apiKey: org.apiKey });
    expect(booked.status).toBe(201);
    const { id, confirmationToken: token } = booked.body.booking;
    expect(booked.body.booking.attendeeCanCancelUntil).toBe('2027-03-02T10:00:00.000Z');
    expect(booked.body.booking.attendeeCanRescheduleUntil).toBe('2027-03-03T08:00:00.000Z');

    // 23 h 59 min before: too late to cancel, still in time to reschedule (exactly at the deadline is allowed).
    t.clock.set('2027-03-02T10:01:00Z');
    const late = await t.http.post(`/v1/bookings/${id}/cancel`, { token });
    expect(late.status).toBe(409);
    expect(late.body.code).toBe('CHANGE_NOT_ALLOWED');
    expect(late.body.details).toEqual([{ field: 'startsAt', message: "cancellation needs 1440 minutes' notice" }]);
    const seen = await t.http.get(`/v1/public/bookings/${id}`, { headers: { authorization: `Token ${token}` } });
    expect(seen.body.booking.status).toBe('confirmed');
    expect(seen.body.booking.attendeeCanCancelUntil).toBe('2027-03-02T10:00:00.000Z');

    t.clock.set('2027-03-03T08:00:00Z');
    const moved = await t.http.post(
      `/v1/bookings/${id}/reschedule`,
      { token, newStartTime: '2027-03-03T11:00:00Z' },
      { headers: { 'idempotency-key': 'move-1' } },
    );
    expect(moved.status).toBe(200);
    expect(moved.body.booking.attendeeCanRescheduleUntil).toBe('2027-03-03T09:00:00.000Z');
    expect(moved.body.booking.attendeeCanCancelUntil).toBe('2027-03-02T11:00:00.000Z');
    const next = moved.body.booking;

    t.clock.set('2027-03-03T09:00:00.001Z');
    const tooLate = await t.http.post(`/v1/bookings/${next.id}/reschedule`, {
      token: next.confirmationToken,
      newStartTime: '2027-03-03T14:00:00Z',
    });
    expect(tooLate.status).toBe(409);
    expect(tooLate.body.code).toBe('CHANGE_NOT_ALLOWED');
    expect(tooLate.body.details).toEqual([{ field: 'startsAt', message: "rescheduling needs 120 minutes' notice" }]);
    const shown = await t.http.get(`/v1/bookings/${next.id}`, { apiKey: org.apiKey });
    expect(shown.body.booking.startsAt).toBe('2027-03-03T11:00:00.000Z');
    expect(shown.body.booking.status).toBe('confirmed');

    // The host side: a secret key, then the owner's JWT.
    const hostMove = await t.http.post(
      `/v1/bookings/${next.id}/reschedule`,
      { newStartTime: '2027-03-03T14:00:00Z' },
      { apiKey: org.apiKey },
    );
    expect(hostMove.status).toBe(200);
    const login = await t.http.post('/v1/auth/login', { email: org.owner.email, password: org.owner.password });
    const hostCancel = await t.http.post(`/v1/bookings/${hostMove.body.booking.id}/cancel`, {}, { token: login.body.accessToken });
    expect(hostCancel.status).toBe(200);
  });

  it('forbidden changes: null deadlines in every view, the public event type shows the policy; the current policy is in force', async () => {
    const org = await bookingOrg(t, { attendeeCancellation: { allowed: false }, attendeeRescheduling: { allowed: false } });
    const booked = await t.http.post('/v1/bookings', bookingBody(org.eventTypeId, START), { apiKey: org.apiKey });
    const { id, confirmationToken: token } = booked.body.booking;
    expect(booked.body.booking.attendeeCanCancelUntil).toBeNull();
    expect(booked.body.booking.attendeeCanRescheduleUntil).toBeNull();
    const list = await t.http.get('/v1/bookings', { apiKey: org.apiKey });
    expect(list.body.bookings[0]).toMatchObject({ attendeeCanCancelUntil: null, attendeeCanRescheduleUntil: null });
    const pub = await t.http.get(`/v1/public/bookings/${id}`, { headers: { authorization: `Token ${token}` } });
    expect(pub.body.booking).toMatchObject({ attendeeCanCancelUntil: null, attendeeCanRescheduleUntil: null });

    const refused = await t.http.post(`/v1/bookings/${id}/cancel`, { token });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({
      code: 'CHANGE_NOT_ALLOWED',
      details: [{ field: 'startsAt', message: 'cancellation by the attendee is not allowed' }],
    });
    const noMove = await t.http.post(`/v1/bookings/${id}/reschedule`, { token, newStartTime: '2027-03-03T12:00:00Z' });
    expect(noMove.status).toBe(409);
    expect(noMove.body.details[0]).toEqual({ field: 'startsAt', message: 'rescheduling by the attendee is not allowed' });

    const pk = (await createApiKey(t.http, org.owner.accessToken, { kind: 'publishable', allowedOrigins: ['https://shop.example'] }))
      .apiKey;
    const publicType = await t.http.get(`/v1/public/event-types/${org.eventTypeId}`, {
      apiKey: pk,
      headers: { origin: 'https://shop.example' },
    });
    expect(publicType.body.eventType.attendeeCancellation).toEqual(policy(false, 0));
    expect(publicType.body.eventType.attendeeRescheduling).toEqual(policy(false, 0));

    // The policy in force is the event type's current one.
    await t.http.patch(`/v1/event-types/${org.eventTypeId}`, { attendeeCancellation: { allowed: true } }, { token: org.owner.accessToken });
    const now = await t.http.get(`/v1/public/bookings/${id}`, { headers: { authorization: `Token ${token}` } });
    expect(now.body.booking.attendeeCanCancelUntil).toBe(START);
    const cancelled = await t.http.post(`/v1/bookings/${id}/cancel`, { token });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.booking.cancelledBy).toBe('attendee');
  });
});
