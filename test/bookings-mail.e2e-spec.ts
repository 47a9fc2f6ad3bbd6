import ical from 'node-ical';
import type { ParsedMail } from 'mailparser';
import { startTestApp, type TestApp } from './support/app.js';
import { bookingBody, bookingOrg } from './support/bookings.js';
import { SmtpTestServer } from './support/smtp.js';

/** The calendar part of a mail, parsed by a real iCalendar parser: the method and the one event. */
function calendarOf(mail: ParsedMail): { method: string; uid: string; start: Date; end: Date; status?: string } {
  const part = mail.attachments.find((a) => a.contentType.startsWith('text/calendar') || a.filename?.endsWith('.ics'));
  if (!part) throw new Error('no calendar part');
  const text = part.content.toString('utf8');
  const parsed = ical.sync.parseICS(text);
  const event = Object.values(parsed).find((c) => c?.type === 'VEVENT') as ical.VEvent;
  const method = /^METHOD:(\w+)/m.exec(text)?.[1] ?? '';
  return { method, uid: event.uid, start: new Date(event.start), end: new Date(event.end as Date), status: event.status };
}

describe('booking mail with calendar invitations', () => {
  let smtp: SmtpTestServer;
  let t: TestApp;
  beforeAll(async () => {
    smtp = await SmtpTestServer.start();
    t = await startTestApp({ env: { SMTP_URL: smtp.url } });
  });
  afterAll(async () => {
    await t.close();
    await smtp.stop();
  });

  it('sends the attendee and the host a REQUEST invitation whose UID is the booking id, then a CANCEL', async () => {
    const org = await bookingOrg(t);
    const booked = await t.http.post(
      '/v1/bookings',
      bookingBody(org.eventTypeId, '2027-03-02T10:00:00Z', { attendee: { email: 'guest@example.com' } }),
      {
        apiKey: org.apiKey,
      },
    );
    const { id, confirmationToken } = booked.body.booking;
    const toGuest = await smtp.waitForMail(
      (m) => m.envelope.to.includes('guest@example.com') && /Confirmed/.test(m.parsed.subject ?? ''),
      10_000,
    );
    const toHost = await smtp.waitForMail(
      (m) => m.envelope.to.includes(org.owner.email) && /Confirmed/.test(m.parsed.subject ?? ''),
      10_000,
    );
    for (const mail of [toGuest, toHost]) {
      const event = calendarOf(mail.parsed);
      expect(event).toMatchObject({ method: 'REQUEST', uid: id });
      expect(event.start.toISOString()).toBe('2027-03-02T10:00:00.000Z');
      expect(event.end.toISOString()).toBe('2027-03-02T10:30:00.000Z');
    }
    // Only the attendee's copy carries the token.
    expect(toGuest.parsed.text).toContain(confirmationToken);
    expect(toHost.parsed.text ?? '').not.toContain(confirmationToken);

    await t.http.post(`/v1/bookings/${id}/cancel`, { token: confirmationToken });
    const cancel = await smtp.waitForMail(
      (m) => m.envelope.to.includes('guest@example.com') && /Cancelled/.test(m.parsed.subject ?? ''),
      10_000,
    );
    expect(calendarOf(cancel.parsed)).toMatchObject({ method: 'CANCEL', uid: id, status: 'CANCELLED' });
  });

  it('sends a reschedule invitation for the new booking', async () => {
    const org = await bookingOrg(t);
    const booked = await t.http.post(
      '/v1/bookings',
      bookingBody(org.eventTypeId, '2027-03-02T10:00:00Z', { attendee: { email: 'mover@example.com' } }),
      {
        apiKey: org.apiKey,
      },
    );
    const moved = await t.http.post(`/v1/bookings/${booked.body.booking.id}/reschedule`, {
      token: booked.body.booking.confirmationToken,
      newStartTime: '2027-03-04T14:00:00Z',
    });
    const mail = await smtp.waitForMail(
      (m) => m.envelope.to.includes('mover@example.com') && /Rescheduled/.test(m.parsed.subject ?? ''),
      10_000,
    );
    expect(calendarOf(mail.parsed)).toMatchObject({ method: 'REQUEST', uid: moved.body.booking.id });
    expect(mail.parsed.text).toContain(moved.body.booking.confirmationToken);
  });

  it('sends nothing for test-mode bookings', async () => {
    const org = await bookingOrg(t);
    await t.http.post(
      '/v1/bookings',
      bookingBody(org.eventTypeId, '2027-03-02T10:00:00Z', { attendee: { email: 'sandbox@example.com' } }),
      {
        apiKey: org.testKey,
      },
    );
    // A live booking sent after it arrives; by then the test one would have too.
    await t.http.post('/v1/bookings', bookingBody(org.eventTypeId, '2027-03-02T11:00:00Z', { attendee: { email: 'marker@example.com' } }), {
      apiKey: org.apiKey,
    });
    await smtp.waitForMail((m) => m.envelope.to.includes('marker@example.com'), 10_000);
    expect(smtp.messages.some((m) => m.envelope.to.includes('sandbox@example.com'))).toBe(false);
  });
});
