import { DataSource } from 'typeorm';
import { startTestApp, type TestApp } from './support/app.js';
import { bookingBody, bookingOrg, type BookingOrg } from './support/bookings.js';
import { addMember, registerOwner } from './support/factories.js';
import { createWebhook, eventually, WebhookReceiver } from './support/webhooks.js';

const START = '2027-03-02T10:00:00.000Z';

/** Who did not come: POST /bookings/:id/no-show (api-rules.md § Reminders). */
describe('no-shows', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  let org: BookingOrg;

  beforeAll(async () => {
    t = await startTestApp();
    receiver = await WebhookReceiver.start();
    org = await bookingOrg(t);
    const hook = await createWebhook(t.http, { apiKey: org.apiKey }, { url: receiver.url('/no-show'), events: ['booking.no_show'] });
    receiver.expectSecret('/no-show', hook.secret);
  });
  afterAll(async () => {
    await t.close();
    await receiver.stop();
  });

  let minute = 0;
  /** A confirmed booking at its own minute after START, made before the meeting (the clock at NOW). */
  async function booked(extra: Record<string, unknown> = {}, key = org.apiKey): Promise<{ id: string; token: string; startsAt: string }> {
    t.clock.set('2027-03-01T06:00:00.000Z');
    const startsAt = new Date(Date.parse(START) + 30 * 60_000 * minute++).toISOString();
    const res = await t.http.post('/v1/bookings', bookingBody(org.eventTypeId, startsAt, extra), { apiKey: key });
    expect(res.status).toBe(201);
    return { id: res.body.booking.id, token: res.body.booking.confirmationToken, startsAt };
  }
  const after = (startsAt: string): void => t.clock.set(new Date(Date.parse(startsAt) + 5 * 60_000).toISOString());
  const noShowEvents = (bookingId: string): any[] =>
    receiver.received.filter((r) => r.path === '/no-show' && r.payload.data.booking.id === bookingId);

  it('shows noShow false on every booking until marked', async () => {
    t.clock.set('2027-03-01T06:00:00.000Z');
    const res = await t.http.post('/v1/bookings', bookingBody(org.eventTypeId, '2027-03-04T10:00:00Z'), { apiKey: org.apiKey });
    expect(res.body.booking.noShow).toEqual({ attendee: false, host: false });
    const got = await t.http.get(`/v1/bookings/${res.body.booking.id}`, { apiKey: org.apiKey });
    expect(got.body.booking.noShow).toEqual({ attendee: false, host: false });
  });

  it('refuses before the meeting has started with 409 BOOKING_NOT_STARTED, and marks once it has, with one webhook', async () => {
    const { id, startsAt } = await booked();
    const early = await t.http.post(`/v1/bookings/${id}/no-show`, { party: 'attendee' }, { apiKey: org.apiKey });
    expect(early.status).toBe(409);
    expect(early.body.code).toBe('BOOKING_NOT_STARTED');

    after(startsAt);
    const marked = await t.http.post(`/v1/bookings/${id}/no-show`, { party: 'attendee' }, { apiKey: org.apiKey });
    expect(marked.status).toBe(200);
    expect(marked.body.booking).toMatchObject({ id, status: 'confirmed', noShow: { attendee: true, host: false } });
    expect((await t.http.get(`/v1/bookings/${id}`, { apiKey: org.apiKey })).body.booking.noShow).toEqual({ attendee: true, host: false });

    // Marked again: the same answer, no second event.
    expect((await t.http.post(`/v1/bookings/${id}/no-show`, { party: 'attendee', noShow: true }, { apiKey: org.apiKey })).status).toBe(200);
    const event = await eventually(async () => noShowEvents(id)[0], 10_000, 'the booking.no_show event');
    expect(event.verified).toBe(true);
    expect(event.payload).toMatchObject({
      type: 'booking.no_show',
      data: { party: 'attendee', booking: { id, noShow: { attendee: true } } },
    });

    // Taken back: false again, and no event for it.
    const unmarked = await t.http.post(`/v1/bookings/${id}/no-show`, { party: 'attendee', noShow: false }, { apiKey: org.apiKey });
    expect(unmarked.body.booking.noShow).toEqual({ attendee: false, host: false });
    const again = await t.http.post(`/v1/bookings/${id}/no-show`, { party: 'host' }, { apiKey: org.apiKey });
    expect(again.body.booking.noShow).toEqual({ attendee: false, host: true });
    await eventually(async () => noShowEvents(id).find((r) => r.payload.data.party === 'host'), 10_000, 'the host event');
    expect(noShowEvents(id).map((r) => r.payload.data.party)).toEqual(['attendee', 'host']);
  });

  it('marks once under concurrency: ten requests at once over two instances, one booking.no_show', async () => {
    const { id, startsAt } = await booked();
    after(startsAt);
    // A second instance to serve, not to work: booted with the clock in a month whose partitions no job has made, its
    // housekeeping would attach them under these requests' events (a retryable 503: partition-retention.e2e-spec.ts).
    const second = await startTestApp({ databaseUrl: t.databaseUrl, clock: t.clock, env: { RUN_WORKERS: 'false' } });
    try {
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          (i % 2 ? second : t).http.post(`/v1/bookings/${id}/no-show`, { party: 'attendee' }, { apiKey: org.apiKey }),
        ),
      );
      expect(results.map((r) => r.status)).toEqual(results.map(() => 200));
      // The outbox holds what was recorded: one event, however many requests marked.
      const recorded = await t.app
        .get(DataSource)
        .query(`SELECT count(*)::int AS n FROM domain_events WHERE type = 'booking.no_show' AND data->'booking'->>'id' = $1`, [id]);
      expect(recorded).toEqual([{ n: 1 }]);
    } finally {
      await second.app.close();
    }
  });

  it('lists the bookings with a mark through ?noShow=', async () => {
    const marked = await booked();
    const other = await booked();
    after(other.startsAt);
    await t.http.post(`/v1/bookings/${marked.id}/no-show`, { party: 'host' }, { apiKey: org.apiKey });
    const hosts = await t.http.get('/v1/bookings?noShow=host&limit=100', { apiKey: org.apiKey });
    expect(hosts.status).toBe(200);
    const ids = hosts.body.bookings.map((b: { id: string }) => b.id);
    expect(ids).toContain(marked.id);
    expect(ids).not.toContain(other.id);
    expect(hosts.body.bookings.every((b: { noShow: { host: boolean } }) => b.noShow.host)).toBe(true);
    const attendees = await t.http.get('/v1/bookings?noShow=attendee&limit=100', { apiKey: org.apiKey });
    expect(attendees.body.bookings.map((b: { id: string }) => b.id)).not.toContain(marked.id);
    expect((await t.http.get('/v1/bookings?noShow=nobody', { apiKey: org.apiKey })).status).toBe(400);
  });

  it('lets the attendee’s token mark the host only; a wrong token is 401, no credentials 401', async () => {
    const { id, token, startsAt } = await booked();
    after(startsAt);
    // Not a browser route: no CORS headers, whatever the Origin (only cancel, reschedule and the booking page are).
    const host = await t.http.post(`/v1/bookings/${id}/no-show`, { party: 'host', token }, { headers: { origin: 'https://any.example' } });
    expect(host.status).toBe(200);
    expect(host.headers.get('access-control-allow-origin')).toBeNull();
    // The attendee's token gets the attendee's view (api-rules.md § Browser booking): no marks, notes, metadata or host ids.
    expect(host.body.booking).toMatchObject({ id, status: 'confirmed' });
    for (const field of ['noShow', 'notes', 'metadata', 'hostUserId', 'hostUserIds']) expect(host.body.booking).not.toHaveProperty(field);
    expect((await t.http.get(`/v1/bookings/${id}`, { apiKey: org.apiKey })).body.booking.noShow).toEqual({ attendee: false, host: true });
    const attendee = await t.http.post(`/v1/bookings/${id}/no-show`, { party: 'attendee', token });
    expect(attendee.status).toBe(403);
    expect(attendee.body.code).toBe('FORBIDDEN');
    expect((await t.http.post(`/v1/bookings/${id}/no-show`, { party: 'host', token: 'x'.repeat(43) })).status).toBe(401);
    expect((await t.http.post(`/v1/bookings/${id}/no-show`, { party: 'host' })).status).toBe(401);
  });

  it('refuses cancelled and pending bookings with 409 BOOKING_NOT_ACTIVE', async () => {
    const cancelled = await booked();
    await t.http.post(`/v1/bookings/${cancelled.id}/cancel`, {}, { apiKey: org.apiKey });
    after(cancelled.startsAt);
    const res = await t.http.post(`/v1/bookings/${cancelled.id}/no-show`, { party: 'attendee' }, { apiKey: org.apiKey });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('BOOKING_NOT_ACTIVE');

    const confirming = await bookingOrg(t, { requiresConfirmation: true });
    t.clock.set('2027-03-01T06:00:00.000Z');
    const pending = await t.http.post('/v1/bookings', bookingBody(confirming.eventTypeId, START), { apiKey: confirming.apiKey });
    expect(pending.body.booking.status).toBe('pending');
    after(START);
    const refused = await t.http.post(`/v1/bookings/${pending.body.booking.id}/no-show`, { party: 'host' }, { apiKey: confirming.apiKey });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('BOOKING_NOT_ACTIVE');
  });

  it('refuses bad input with 400 naming the field, never a 500', async () => {
    const { id, startsAt } = await booked();
    after(startsAt);
    for (const [body, field] of [
      [{}, 'party'],
      [{ party: 'guest' }, 'party'],
      [{ party: 'host', noShow: 'yes' }, 'noShow'],
      [{ party: 'host', extra: 1 }, 'extra'],
    ] as const) {
      const res = await t.http.post(`/v1/bookings/${id}/no-show`, body, { apiKey: org.apiKey });
      expect(res.status).toBe(400);
      expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
    }
    expect((await t.http.post('/v1/bookings/bkg_000000000000000000000000/no-show', { party: 'host' }, { apiKey: org.apiKey })).status).toBe(
      404,
    );
  });

  it('keeps to the hosting rules: another organization and a member who does not host get 404; the owner may mark', async () => {
    const { id, startsAt } = await booked();
    const stranger = await registerOwner(t.http);
    const member = await addMember(t, org.owner.accessToken, org.owner.organizationId, 'member');
    const readOnly = await t.http.post('/v1/api-keys', { name: 'ro', scopes: ['bookings:read'] }, { token: org.owner.accessToken });
    after(startsAt);
    // An hour past the meeting, the access tokens of before have expired: new ones through the refresh tokens.
    const fresh = async (refreshToken: string): Promise<string> =>
      (await t.http.post('/v1/auth/refresh', { refreshToken })).body.accessToken as string;
    const mark = (auth: { token?: string; apiKey?: string }) => t.http.post(`/v1/bookings/${id}/no-show`, { party: 'host' }, auth);
    expect((await mark({ token: await fresh(stranger.refreshToken) })).status).toBe(404);
    expect((await mark({ token: await fresh(member.refreshToken) })).status).toBe(404);
    const scoped = await mark({ apiKey: readOnly.body.apiKey });
    expect(scoped.status).toBe(403);
    expect(scoped.body.code).toBe('INSUFFICIENT_SCOPE');
    expect((await mark({ token: await fresh(org.owner.refreshToken) })).status).toBe(200);
  });

  it('works in test mode on test bookings, which live keys do not see', async () => {
    const { id, startsAt } = await booked({}, org.testKey);
    after(startsAt);
    expect((await t.http.post(`/v1/bookings/${id}/no-show`, { party: 'attendee' }, { apiKey: org.apiKey })).status).toBe(404);
    const res = await t.http.post(`/v1/bookings/${id}/no-show`, { party: 'attendee' }, { apiKey: org.testKey });
    expect(res.status).toBe(200);
    expect(res.body.booking).toMatchObject({ livemode: false, noShow: { attendee: true } });
  });
});
