import ical from 'node-ical';
import { startTestApp, type TestApp } from './support/app.js';
import { bookingBody, bookingOrg, type BookingOrg } from './support/bookings.js';
import { SmtpTestServer } from './support/smtp.js';
import { createWebhook, eventually, WebhookReceiver } from './support/webhooks.js';

const TEMPLATE = 'https://meet.jit.si/acme-{bookingId}';
const room = (bookingId: string): string => `https://meet.jit.si/acme-${bookingId}`;

/** The one VEVENT of an iCalendar text, as node-ical reads it. */
function eventOf(text: string): ical.VEvent {
  return Object.values(ical.sync.parseICS(text)).find((c) => c?.type === 'VEVENT') as ical.VEvent;
}

/** `{bookingId}` in an event type's location: a room of its own per booking (api-rules.md § Reminders). */
describe('meeting links', () => {
  let smtp: SmtpTestServer;
  let receiver: WebhookReceiver;
  let t: TestApp;
  let org: BookingOrg;

  beforeAll(async () => {
    smtp = await SmtpTestServer.start();
    receiver = await WebhookReceiver.start();
    t = await startTestApp({ env: { SMTP_URL: smtp.url } });
    org = await bookingOrg(t, { locationType: 'meet', location: TEMPLATE });
    const hook = await createWebhook(t.http, { apiKey: org.apiKey }, { url: receiver.url('/links'), events: ['*'] });
    receiver.expectSecret('/links', hook.secret);
  });
  afterAll(async () => {
    await t.close();
    await receiver.stop();
    await smtp.stop();
  });

  it('puts the booking’s id in its location and meetingUrl, its mails and their .ics, its webhook and the host’s feed', async () => {
    const created = await t.http.post(
      '/v1/bookings',
      bookingBody(org.eventTypeId, '2027-03-02T10:00:00Z', { attendee: { email: 'links@example.com' } }),
      { apiKey: org.apiKey },
    );
    expect(created.status).toBe(201);
    const id = created.body.booking.id as string;
    expect(created.body.booking.location).toBe(room(id));
    const got = await t.http.get(`/v1/bookings/${id}`, { apiKey: org.apiKey });
    expect(got.body.booking).toMatchObject({ location: room(id), meetingUrl: room(id) });
    // The event type keeps its template.
    expect((await t.http.get(`/v1/event-types/${org.eventTypeId}`, { apiKey: org.apiKey })).body.eventType.location).toBe(TEMPLATE);

    for (const to of ['links@example.com', org.owner.email]) {
      const mail = await smtp.waitForMail((m) => m.envelope.to.includes(to) && /Confirmed/.test(m.parsed.subject ?? ''), 10_000);
      expect(mail.parsed.text).toContain(room(id));
      const part = mail.parsed.attachments.find((a) => a.contentType.startsWith('text/calendar'))!;
      expect(eventOf(part.content.toString('utf8')).location).toBe(room(id));
    }

    const webhook = await eventually(
      async () => receiver.received.find((r) => r.payload.type === 'booking.created' && r.payload.data.booking.id === id),
      10_000,
      'booking.created',
    );
    expect(webhook.verified).toBe(true);
    expect(webhook.payload.data.booking).toMatchObject({ location: room(id), meetingUrl: room(id) });

    const feedUrl = (await t.http.get('/v1/users/me/calendar-feed', { token: org.owner.accessToken })).body.url as string;
    const feed = await fetch(`${t.url}${new URL(feedUrl).pathname}`);
    const events = Object.values(ical.sync.parseICS(await feed.text())).filter((c) => c?.type === 'VEVENT') as ical.VEvent[];
    expect(events.find((e) => e.uid === id)?.location).toBe(room(id));
  });

  it('gives a rescheduled booking its new id’s link, and a public booking its own', async () => {
    const created = await t.http.post('/v1/bookings', bookingBody(org.eventTypeId, '2027-03-03T10:00:00Z'), { apiKey: org.apiKey });
    const moved = await t.http.post(
      `/v1/bookings/${created.body.booking.id}/reschedule`,
      { newStartTime: '2027-03-03T11:00:00Z', token: created.body.booking.confirmationToken },
      {},
    );
    expect(moved.status).toBe(200);
    const next = await t.http.get(`/v1/bookings/${moved.body.booking.id}`, { apiKey: org.apiKey });
    expect(next.body.booking.location).toBe(room(moved.body.booking.id));
    const webhook = await eventually(
      async () =>
        receiver.received.find((r) => r.payload.type === 'booking.rescheduled' && r.payload.data.booking.id === moved.body.booking.id),
      10_000,
      'booking.rescheduled',
    );
    expect(webhook.payload.data.booking.meetingUrl).toBe(room(moved.body.booking.id));
    expect(webhook.payload.data.previousBooking.meetingUrl).toBe(room(created.body.booking.id));

    const key = await t.http.post(
      '/v1/api-keys',
      { name: 'site', kind: 'publishable', allowedOrigins: ['https://shop.example'] },
      { token: org.owner.accessToken },
    );
    const origin = { headers: { origin: 'https://shop.example' } };
    const booked = await t.http.post('/v1/public/bookings', bookingBody(org.eventTypeId, '2027-03-03T13:00:00Z'), {
      apiKey: key.body.apiKey,
      ...origin,
    });
    expect(booked.status).toBe(201);
    expect(booked.body.booking).toMatchObject({ location: room(booked.body.booking.id), meetingUrl: room(booked.body.booking.id) });
  });

  it('refuses any other placeholder or brace in location, naming it, on create and update', async () => {
    for (const location of ['https://meet.example/{foo}', 'https://meet.example/{bookingid}', 'room {', 'https://x/{bookingId']) {
      const created = await t.http.post(
        '/v1/event-types',
        { title: 'Bad link', slug: `bad-${Math.random().toString(36).slice(2, 8)}`, durationMinutes: 30, location },
        { apiKey: org.apiKey },
      );
      expect({ location, status: created.status }).toEqual({ location, status: 400 });
      expect(created.body.details.map((d: { field: string }) => d.field)).toEqual(['location']);
      const patched = await t.http.patch(`/v1/event-types/${org.eventTypeId}`, { location }, { apiKey: org.apiKey });
      expect(patched.status).toBe(400);
    }
    const fine = await t.http.patch(
      `/v1/event-types/${org.eventTypeId}`,
      { location: 'https://meet.example/{bookingId}?from={bookingId}' },
      { apiKey: org.apiKey },
    );
    expect(fine.status).toBe(200);
    await t.http.patch(`/v1/event-types/${org.eventTypeId}`, { location: TEMPLATE }, { apiKey: org.apiKey });
  });
});
