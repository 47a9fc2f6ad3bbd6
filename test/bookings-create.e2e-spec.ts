import { startTestApp, type TestApp } from './support/app.js';
import { bookingBody, bookingOrg } from './support/bookings.js';
import { createEventType } from './support/scheduling.js';
import { addMember, registerOwner } from './support/factories.js';

describe('bookings: create, read, list', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('books a free slot: 201 with every documented field and a 128-bit+ token', async () => {
    const org = await bookingOrg(t);
    const res = await t.http.post(
      '/v1/bookings',
      bookingBody(org.eventTypeId, '2027-03-02T10:00:00Z', { notes: 'Bring the plan', metadata: { crm: '42' } }),
      { apiKey: org.apiKey },
    );
    expect(res.status).toBe(201);
    expect(res.body.booking).toEqual({
      id: expect.stringMatching(/^bkg_[0-9A-Za-z]{20,}$/),
      eventTypeId: org.eventTypeId,
      hostUserId: org.owner.userId,
      hostUserIds: [org.owner.userId],
      startsAt: '2027-03-02T10:00:00.000Z',
      endsAt: '2027-03-02T10:30:00.000Z',
      status: 'confirmed',
      confirmationToken: expect.stringMatching(/^[0-9A-Za-z]{22,}$/),
      attendee: { email: 'attendee@example.com', firstName: 'Ann', lastName: 'Attendee', phone: null, locale: null },
      timezone: 'UTC',
      locationType: null,
      location: null,
      notes: 'Bring the plan',
      metadata: { crm: '42' },
      answers: [],
      createdAt: expect.any(String),
      livemode: true,
      seriesId: null,
      occurrence: null,
      noShow: { attendee: false, host: false },
      attendeeCanCancelUntil: '2027-03-02T10:00:00.000Z',
      attendeeCanRescheduleUntil: '2027-03-02T10:00:00.000Z',
    });
    const detail = await t.http.get(`/v1/bookings/${res.body.booking.id}`, { apiKey: org.apiKey });
    expect(detail.status).toBe(200);
    expect(detail.body.booking).toMatchObject({
      id: res.body.booking.id,
      eventType: { id: org.eventTypeId, title: 'Meeting', durationMinutes: 30, slug: expect.any(String) },
      meetingUrl: null,
      cancelledAt: null,
      cancellationReason: null,
      cancelledBy: null,
      previousBookingId: null,
      rescheduledToBookingId: null,
      updatedAt: expect.any(String),
    });
    expect(detail.body.booking.confirmationToken).toBeUndefined();
  });

  it('reads a start time without offset as wall-clock time in the request’s timezone', async () => {
    const org = await bookingOrg(t);
    const res = await t.http.post('/v1/bookings', bookingBody(org.eventTypeId, '2027-03-02T11:00:00', { timezone: 'Europe/Berlin' }), {
      apiKey: org.apiKey,
    });
    expect(res.status).toBe(201);
    expect(res.body.booking.startsAt).toBe('2027-03-02T10:00:00.000Z');
  });

  it.each([
    ['2027-03-02T10:00:00Z', 'already_booked'],
    ['2027-03-02T10:15:00Z', 'outside_availability'],
    ['2027-03-02T18:00:00Z', 'outside_availability'],
    ['2027-02-26T10:00:00Z', 'in_the_past'],
    ['2027-06-01T10:00:00Z', 'outside_booking_window'],
  ])('refuses %s with 409 SLOT_UNAVAILABLE (%s)', async (startTime, reason) => {
    const org = await bookingOrg(t);
    expect((await t.http.post('/v1/bookings', bookingBody(org.eventTypeId, '2027-03-02T10:00:00Z'), { apiKey: org.apiKey })).status).toBe(
      201,
    );
    const res = await t.http.post('/v1/bookings', bookingBody(org.eventTypeId, startTime), { apiKey: org.apiKey });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('SLOT_UNAVAILABLE');
    expect(res.body.details).toEqual([{ field: 'startTime', message: reason }]);
  });

  it('agrees with /availability/check and keeps buffers', async () => {
    const org = await bookingOrg(t, { bufferAfterMinutes: 30 });
    expect((await t.http.post('/v1/bookings', bookingBody(org.eventTypeId, '2027-03-02T10:00:00Z'), { apiKey: org.apiKey })).status).toBe(
      201,
    );
    const check = await t.http.get(`/v1/availability/check?eventTypeId=${org.eventTypeId}&startTime=2027-03-02T10:30:00Z`, {
      apiKey: org.apiKey,
    });
    expect(check.body).toEqual({ available: false, reason: 'already_booked' });
    const res = await t.http.post('/v1/bookings', bookingBody(org.eventTypeId, '2027-03-02T10:30:00Z'), { apiKey: org.apiKey });
    expect(res.status).toBe(409);
    expect((await t.http.post('/v1/bookings', bookingBody(org.eventTypeId, '2027-03-02T11:00:00Z'), { apiKey: org.apiKey })).status).toBe(
      201,
    );
  });

  it.each([
    [{ attendee: undefined }, 'attendee'],
    [{ attendee: { email: 'nope' } }, 'attendee.email'],
    [{ startTime: 'tomorrow' }, 'startTime'],
    [{ startTime: '2027-02-30T10:00:00Z' }, 'startTime'],
    [{ timezone: 'Moon/Base' }, 'timezone'],
    [{ notes: 'x'.repeat(2001) }, 'notes'],
    [{ metadata: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v'])) }, 'metadata'],
    [{ metadata: { nested: { no: 1 } } }, 'metadata'],
    [{ hostUserId: 'usr_x' }, 'hostUserId'],
    [{ eventTypeId: 42 }, 'eventTypeId'],
  ])('rejects %j with 400 naming %s', async (patch, field) => {
    const org = await bookingOrg(t);
    const res = await t.http.post(
      '/v1/bookings',
      { ...bookingBody(org.eventTypeId, '2027-03-02T10:00:00Z'), ...patch },
      { apiKey: org.apiKey },
    );
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it('answers 404 for another organization’s event type and 409 for a deleted one', async () => {
    const org = await bookingOrg(t);
    const other = await bookingOrg(t);
    const foreign = await t.http.post('/v1/bookings', bookingBody(other.eventTypeId, '2027-03-02T10:00:00Z'), { apiKey: org.apiKey });
    expect(foreign.status).toBe(404);
    await t.http.delete(`/v1/event-types/${org.eventTypeId}`, { token: org.owner.accessToken });
    const inactive = await t.http.post('/v1/bookings', bookingBody(org.eventTypeId, '2027-03-02T10:00:00Z'), { apiKey: org.apiKey });
    expect(inactive.status).toBe(409);
    expect(inactive.body.code).toBe('EVENT_TYPE_INACTIVE');
  });

  it('makes bookings pending when the event type requires confirmation; confirm and decline', async () => {
    const org = await bookingOrg(t, { requiresConfirmation: true });
    const a = await t.http.post('/v1/bookings', bookingBody(org.eventTypeId, '2027-03-02T10:00:00Z'), { apiKey: org.apiKey });
    const b = await t.http.post('/v1/bookings', bookingBody(org.eventTypeId, '2027-03-02T11:00:00Z'), { apiKey: org.apiKey });
    expect([a.body.booking.status, b.body.booking.status]).toEqual(['pending', 'pending']);
    // A pending booking holds its time.
    expect((await t.http.post('/v1/bookings', bookingBody(org.eventTypeId, '2027-03-02T10:00:00Z'), { apiKey: org.apiKey })).status).toBe(
      409,
    );
    const confirmed = await t.http.post(`/v1/bookings/${a.body.booking.id}/confirm`, {}, { apiKey: org.apiKey });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.booking.status).toBe('confirmed');
    const again = await t.http.post(`/v1/bookings/${a.body.booking.id}/confirm`, {}, { apiKey: org.apiKey });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('BOOKING_NOT_PENDING');
    const declined = await t.http.post(`/v1/bookings/${b.body.booking.id}/decline`, { reason: 'Busy' }, { token: org.owner.accessToken });
    expect(declined.status).toBe(200);
    expect(declined.body.booking).toMatchObject({ status: 'cancelled', cancelledBy: 'host', cancellationReason: 'Busy' });
    expect((await t.http.post(`/v1/bookings/${b.body.booking.id}/decline`, {}, { apiKey: org.apiKey })).body.code).toBe(
      'BOOKING_NOT_PENDING',
    );
    // Declining freed the time.
    expect((await t.http.post('/v1/bookings', bookingBody(org.eventTypeId, '2027-03-02T11:00:00Z'), { apiKey: org.apiKey })).status).toBe(
      201,
    );
  });

  it('lists in startsAt order with filters and pagination; members see only what they host', async () => {
    const org = await bookingOrg(t);
    const member = await addMember(t, org.owner.accessToken, org.owner.organizationId, 'member');
    const times = ['2027-03-03T12:00:00Z', '2027-03-02T09:00:00Z', '2027-03-02T15:00:00Z'];
    const ids: string[] = [];
    for (const time of times) {
      const res = await t.http.post(
        '/v1/bookings',
        bookingBody(org.eventTypeId, time, { attendee: { email: `a${ids.length}@example.com` } }),
        {
          apiKey: org.apiKey,
        },
      );
      ids.push(res.body.booking.id);
    }
    await t.http.post(`/v1/bookings/${ids[2]}/cancel`, {}, { apiKey: org.apiKey });
    const all = await t.http.get('/v1/bookings', { apiKey: org.apiKey });
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ totalCount: 3, hasMore: false, page: 1, limit: 20 });
    expect(all.body.bookings.map((b: { startsAt: string }) => b.startsAt)).toEqual([
      '2027-03-02T09:00:00.000Z',
      '2027-03-02T15:00:00.000Z',
      '2027-03-03T12:00:00.000Z',
    ]);
    const q = async (query: string): Promise<number> => (await t.http.get(`/v1/bookings?${query}`, { apiKey: org.apiKey })).body.totalCount;
    expect(await q('status=cancelled')).toBe(1);
    expect(await q('status=confirmed')).toBe(2);
    expect(await q('startDate=2027-03-02&endDate=2027-03-02')).toBe(2);
    expect(await q('startDate=2027-03-02T10:00:00Z')).toBe(2);
    expect(await q('attendeeEmail=A1@example.com')).toBe(1);
    expect(await q(`eventTypeId=${org.eventTypeId}&hostUserId=${org.owner.userId}`)).toBe(3);
    const page = await t.http.get('/v1/bookings?page=2&limit=2', { apiKey: org.apiKey });
    expect(page.body).toMatchObject({ totalCount: 3, hasMore: false, page: 2, limit: 2 });
    expect(page.body.bookings).toHaveLength(1);
    for (const bad of [
      'page=0',
      'limit=101',
      'status=done',
      'startDate=yesterday',
      'startDate=2027-03-05&endDate=2027-03-01',
      'startDate=2027-02-30',
      'endDate=2027-02-29T10:00:00Z',
    ]) {
      expect((await t.http.get(`/v1/bookings?${bad}`, { apiKey: org.apiKey })).status).toBe(400);
    }
    const mine = await t.http.get('/v1/bookings', { token: member.accessToken });
    expect(mine.status).toBe(200);
    expect(mine.body.totalCount).toBe(0);
    expect((await t.http.get(`/v1/bookings/${ids[0]}`, { token: member.accessToken })).status).toBe(404);
    expect((await t.http.post(`/v1/bookings/${ids[0]}/cancel`, {}, { token: member.accessToken })).status).toBe(404);
  });

  it('lets a member read and cancel bookings it hosts', async () => {
    const org = await bookingOrg(t);
    const member = await addMember(t, org.owner.accessToken, org.owner.organizationId, 'member');
    await t.http.put(
      `/v1/availability/schedules`,
      { timezone: 'UTC', schedules: [{ dayOfWeek: 2, slots: [{ startTime: '09:00', endTime: '17:00' }] }] },
      { token: member.accessToken },
    );
    const hosted = await createEventType(t, { token: org.owner.accessToken }, { durationMinutes: 30, hostUserIds: [member.userId] });
    const booked = await t.http.post('/v1/bookings', bookingBody(hosted, '2027-03-02T09:00:00Z'), { token: member.accessToken });
    expect(booked.status).toBe(201);
    expect((await t.http.get('/v1/bookings', { token: member.accessToken })).body.totalCount).toBe(1);
    expect((await t.http.get(`/v1/bookings/${booked.body.booking.id}`, { token: member.accessToken })).status).toBe(200);
    expect((await t.http.post(`/v1/bookings/${booked.body.booking.id}/cancel`, {}, { token: member.accessToken })).status).toBe(200);
  });

  it('answers 404 on every booking route for another organization’s booking', async () => {
    const org = await bookingOrg(t);
    const other = await registerOwner(t.http);
    const booked = await t.http.post('/v1/bookings', bookingBody(org.eventTypeId, '2027-03-02T10:00:00Z'), { apiKey: org.apiKey });
    const id = booked.body.booking.id;
    const who = { token: other.accessToken };
    expect((await t.http.get(`/v1/bookings/${id}`, who)).status).toBe(404);
    expect((await t.http.post(`/v1/bookings/${id}/cancel`, {}, who)).status).toBe(404);
    expect((await t.http.post(`/v1/bookings/${id}/reschedule`, { newStartTime: '2027-03-02T12:00:00Z' }, who)).status).toBe(404);
    expect((await t.http.post(`/v1/bookings/${id}/confirm`, {}, who)).status).toBe(404);
    expect((await t.http.post(`/v1/bookings/${id}/decline`, {}, who)).status).toBe(404);
    expect((await t.http.get('/v1/bookings', who)).body.totalCount).toBe(0);
    expect((await t.http.get('/v1/bookings/bkg_%27%3B--', who)).status).toBe(400);
  });

  it('needs bookings:write to book and bookings:read to read', async () => {
    const org = await bookingOrg(t);
    const readOnly = (await t.http.post('/v1/api-keys', { name: 'ro', scopes: ['bookings:read'] }, { token: org.owner.accessToken })).body
      .apiKey;
    const res = await t.http.post('/v1/bookings', bookingBody(org.eventTypeId, '2027-03-02T10:00:00Z'), { apiKey: readOnly });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('INSUFFICIENT_SCOPE');
    const writeOnly = (await t.http.post('/v1/api-keys', { name: 'wo', scopes: ['bookings:write'] }, { token: org.owner.accessToken })).body
      .apiKey;
    expect((await t.http.get('/v1/bookings', { apiKey: writeOnly })).body.code).toBe('INSUFFICIENT_SCOPE');
  });
});
