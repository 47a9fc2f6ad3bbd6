import ical from 'node-ical';
import type { ParsedMail } from 'mailparser';
import { startTestApp, type TestApp } from './support/app.js';
import { bookingBody, bookingOrg, WEEKDAYS_9_TO_5 } from './support/bookings.js';
import { inviteMember } from './support/factories.js';
import { putSchedule } from './support/scheduling.js';
import { SmtpTestServer, type ReceivedMail } from './support/smtp.js';
import { createWebhook, WebhookReceiver } from './support/webhooks.js';

/** Every event of a mail's calendar part, parsed by a real iCalendar parser. */
function eventsOf(mail: ParsedMail): { method: string; events: ical.VEvent[]; text: string } {
  const part = mail.attachments.find((a) => a.contentType.startsWith('text/calendar') || a.filename?.endsWith('.ics'));
  if (!part) throw new Error('no calendar part');
  const text = part.content.toString('utf8');
  const events = Object.values(ical.sync.parseICS(text)).filter((c): c is ical.VEvent => c?.type === 'VEVENT');
  return { method: /^METHOD:(\w+)/m.exec(text)?.[1] ?? '', events, text };
}

const WEEKLY = { frequency: 'weekly', interval: 1, maxCount: 8 };

/** Mail and webhooks of series and seats (api-rules.md § Seats and series), read from a real SMTP server and a verifying receiver. */
describe('series and seats in mail and webhooks', () => {
  let smtp: SmtpTestServer;
  let receiver: WebhookReceiver;
  let t: TestApp;
  beforeAll(async () => {
    smtp = await SmtpTestServer.start();
    receiver = await WebhookReceiver.start();
    t = await startTestApp({ env: { SMTP_URL: smtp.url } });
  });
  afterAll(async () => {
    await t.close();
    await smtp.stop();
    await receiver.stop();
  });

  const mailsTo = (email: string, subject: RegExp): ReceivedMail[] =>
    smtp.messages.filter((m) => m.envelope.to.includes(email) && subject.test(m.parsed.subject ?? ''));

  it('sends the attendee and the host one confirmation listing every date, with one VEVENT per occurrence; one webhook each', async () => {
    const org = await bookingOrg(t, { recurrence: WEEKLY, title: 'Coaching' });
    const created = await createWebhook(
      t.http,
      { apiKey: org.apiKey },
      { url: receiver.url('/series'), events: ['booking.created', 'booking.cancelled'] },
    );
    receiver.expectSecret('/series', created.secret);
    const made = await t.http.post(
      '/v1/bookings',
      bookingBody(org.eventTypeId, '2027-03-02T10:00:00Z', {
        recurrenceCount: 4,
        timezone: 'Europe/Berlin',
        attendee: { email: 'series@example.com' },
      }),
      { apiKey: org.apiKey },
    );
    expect(made.status).toBe(201);
    const occurrences = made.body.series.bookings as { id: string; startsAt: string; endsAt: string }[];
    const toGuest = await smtp.waitForMail(
      (m) => m.envelope.to.includes('series@example.com') && /Confirmed/.test(m.parsed.subject ?? ''),
      10_000,
    );
    const toHost = await smtp.waitForMail(
      (m) => m.envelope.to.includes(org.owner.email) && /Confirmed/.test(m.parsed.subject ?? ''),
      10_000,
    );
    for (const mail of [toGuest, toHost]) {
      const { method, events } = eventsOf(mail.parsed);
      expect(method).toBe('REQUEST');
      expect(
        events.map((event) => [event.uid, new Date(event.start).toISOString(), new Date(event.end as Date).toISOString()]).sort(),
      ).toEqual(occurrences.map((o) => [o.id, o.startsAt, o.endsAt]).sort());
      expect(mail.parsed.text).toContain('When (4 dates):');
      // Four Tuesdays, each in its reader's zone (contract § 23): the attendee's 11:00 in Berlin, the host's 10:00 in
      // its schedule's zone (UTC).
      for (const day of ['2 March 2027', '9 March 2027', '16 March 2027', '23 March 2027']) expect(mail.parsed.text).toContain(day);
      const [hour, zone] = mail === toGuest ? ['11:00', 'Europe/Berlin'] : ['10:00', 'UTC'];
      expect((mail.parsed.text ?? '').match(new RegExp(`${hour} \\(${zone.replace('/', '\\/')}\\)`, 'g'))).toHaveLength(4);
    }
    expect(toGuest.parsed.text).toContain(made.body.booking.confirmationToken);
    expect(toHost.parsed.text ?? '').not.toContain(made.body.booking.confirmationToken);

    // One booking.created per occurrence, each about its own booking.
    await receiver.waitFor(() => receiver.at('/series').length === 4, 8000, 'four booking.created');
    const events = receiver.at('/series').map((r) => r.payload);
    expect(events.map((e) => e.data.booking.id).sort()).toEqual(occurrences.map((o) => o.id).sort());
    expect(events.every((e) => e.type === 'booking.created' && e.data.booking.seriesId === made.body.series.id)).toBe(true);
    expect(events.map((e) => e.data.booking.occurrence).sort()).toEqual([1, 2, 3, 4]);
    expect(receiver.unverified()).toEqual([]);

    // Cancelling the following ones from the second: one mail, a CANCEL of the three.
    const cancelled = await t.http.post(`/v1/bookings/${occurrences[1].id}/cancel`, {
      token: made.body.booking.confirmationToken,
      scope: 'following',
    });
    expect(cancelled.status).toBe(200);
    const cancel = await smtp.waitForMail(
      (m) => m.envelope.to.includes('series@example.com') && /Cancelled/.test(m.parsed.subject ?? ''),
      10_000,
    );
    const { method, events: gone } = eventsOf(cancel.parsed);
    expect(method).toBe('CANCEL');
    expect(gone.map((event) => event.uid).sort()).toEqual(
      occurrences
        .slice(1)
        .map((o) => o.id)
        .sort(),
    );
    await receiver.waitFor(() => receiver.at('/series').length === 7, 8000, 'three booking.cancelled');
    // Only one cancellation mail each, however many occurrences it covers.
    await smtp.waitForMail((m) => m.envelope.to.includes(org.owner.email) && /Cancelled/.test(m.parsed.subject ?? ''), 10_000);
    expect(mailsTo('series@example.com', /Cancelled/)).toHaveLength(1);
    expect(mailsTo(org.owner.email, /Cancelled/)).toHaveLength(1);
  });

  it('seats: each attendee’s mail and .ics name only that attendee; the host gets one mail per seat', async () => {
    const org = await bookingOrg(t, { seatsPerSlot: 5, title: 'Workshop' });
    const seats = ['seat.one@example.com', 'seat.two@example.com'];
    for (const email of seats) {
      const res = await t.http.post(
        '/v1/bookings',
        bookingBody(org.eventTypeId, '2027-03-02T10:00:00Z', { attendee: { email, firstName: 'Seat' } }),
        {
          apiKey: org.apiKey,
        },
      );
      expect(res.status).toBe(201);
    }
    for (const [mine, theirs] of [seats, [...seats].reverse()]) {
      const mail = await smtp.waitForMail((m) => m.envelope.to.includes(mine) && /Confirmed/.test(m.parsed.subject ?? ''), 10_000);
      expect(mail.envelope.to).toEqual([mine]);
      const { text } = eventsOf(mail.parsed);
      for (const body of [mail.parsed.text ?? '', mail.parsed.html || '', text]) {
        expect(body).not.toContain(theirs);
      }
      expect(text).toContain(mine);
    }
    await smtp.waitForMail(() => mailsTo(org.owner.email, /Confirmed: Workshop/).length === 2, 10_000);
    const hostMails = mailsTo(org.owner.email, /Confirmed: Workshop/).map((m) => m.parsed.text ?? '');
    expect(seats.every((email) => hostMails.some((text) => text.includes(email)))).toBe(true);
  });
  it('an occurrence a stand-in takes is in the stand-in’s mail only: each host’s .ics holds its own occurrences, the attendee’s every one', async () => {
    const org = await bookingOrg(t, { recurrence: WEEKLY, title: 'Standing' });
    const invited = await inviteMember(t.http, org.owner.accessToken, org.owner.organizationId, { role: 'member' });
    const invitation = await smtp.waitForMail((m) => m.envelope.to.includes(invited.email), 10_000);
    const token = /token=([0-9A-Za-z]+)/.exec(invitation.parsed.text ?? '')![1];
    const joined = await t.http.post('/v1/invitations/accept', { token, password: 'member password 1' });
    expect(joined.status).toBe(200);
    const standIn = { email: invited.email, userId: joined.body.member.userId as string };
    await putSchedule(t, { token: org.owner.accessToken }, 'UTC', WEEKDAYS_9_TO_5, standIn.userId);
    const away = await t.http.post(
      '/v1/out-of-office',
      { startsAt: '2027-03-09T00:00:00Z', endsAt: '2027-03-10T00:00:00Z', redirectToUserId: standIn.userId },
      { token: org.owner.accessToken },
    );
    expect(away.status).toBe(201);
    const made = await t.http.post(
      '/v1/bookings',
      bookingBody(org.eventTypeId, '2027-03-02T10:00:00Z', { recurrenceCount: 3, attendee: { email: 'stood@example.com' } }),
      { apiKey: org.apiKey },
    );
    expect(made.status).toBe(201);
    const ids = (made.body.series.bookings as { id: string }[]).map((booking) => booking.id);
    const uids = (mail: ReceivedMail): string[] =>
      eventsOf(mail.parsed)
        .events.map((event) => event.uid)
        .sort();
    const toOwner = await smtp.waitForMail(
      (m) => m.envelope.to.includes(org.owner.email) && /Confirmed: Standing/.test(m.parsed.subject ?? ''),
      10_000,
    );
    expect(uids(toOwner)).toEqual([ids[0], ids[2]].sort());
    const toStandIn = await smtp.waitForMail(
      (m) => m.envelope.to.includes(standIn.email) && /Confirmed: Standing/.test(m.parsed.subject ?? ''),
      10_000,
    );
    expect(uids(toStandIn)).toEqual([ids[1]]);
    // The attendee's one mail lists every date.
    const toAttendee = await smtp.waitForMail((m) => m.envelope.to.includes('stood@example.com'), 10_000);
    expect(uids(toAttendee)).toEqual([...ids].sort());
    expect(mailsTo('stood@example.com', /Confirmed: Standing/)).toHaveLength(1);
    expect(mailsTo(org.owner.email, /Confirmed: Standing/)).toHaveLength(1);
    expect(mailsTo(standIn.email, /Confirmed: Standing/)).toHaveLength(1);

    // Cancelling them all: the same split, each calendar dropping only what it holds.
    const cancelled = await t.http.post(`/v1/bookings/${ids[0]}/cancel`, {
      token: made.body.booking.confirmationToken,
      scope: 'following',
    });
    expect(cancelled.status).toBe(200);
    const cancelOf = (email: string) =>
      smtp.waitForMail((m) => m.envelope.to.includes(email) && /Cancelled: Standing/.test(m.parsed.subject ?? ''), 10_000);
    expect(uids(await cancelOf('stood@example.com'))).toEqual([...ids].sort());
    expect(uids(await cancelOf(org.owner.email))).toEqual([ids[0], ids[2]].sort());
    expect(uids(await cancelOf(standIn.email))).toEqual([ids[1]]);
    for (const email of ['stood@example.com', org.owner.email, standIn.email])
      expect(mailsTo(email, /Cancelled: Standing/)).toHaveLength(1);
  });
});
