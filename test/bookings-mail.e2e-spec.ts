import ical from 'node-ical';
import type { ParsedMail } from 'mailparser';
import { LOCALES, message, readerLocale } from '../apps/api/src/i18n/index.js';
import { startTestApp, type TestApp } from './support/app.js';
import { bookingBody, bookingOrg, type BookingOrg } from './support/bookings.js';
import { putSchedule } from './support/scheduling.js';
import { type ReceivedMail, SmtpTestServer } from './support/smtp.js';

/** The calendar part of a mail, parsed by a real iCalendar parser: the method and the one event. */
function calendarOf(mail: ParsedMail): { method: string; uid: string; start: Date; end: Date; status?: string; summary: string } {
  const part = mail.attachments.find((a) => a.contentType.startsWith('text/calendar') || a.filename?.endsWith('.ics'));
  if (!part) throw new Error('no calendar part');
  const text = part.content.toString('utf8');
  const parsed = ical.sync.parseICS(text);
  const event = Object.values(parsed).find((c) => c?.type === 'VEVENT') as ical.VEvent;
  const method = /^METHOD:(\w+)/m.exec(text)?.[1] ?? '';
  return {
    method,
    uid: event.uid,
    start: new Date(event.start),
    end: new Date(event.end as Date),
    status: event.status,
    summary: String(event.summary),
  };
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

  describe('in the reader’s language (contract § 23)', () => {
    /**
     * What Intl itself writes for the instant: the date in full and the time, in the reader's zone and the locale its
     * tag's dates are written in (the tag itself when Intl knows it; `en` alone: en-GB, as English mails always were).
     */
    const intl = (locale: string, zone: string, at: string | Date): string =>
      new Intl.DateTimeFormat(readerLocale(locale, null).dates, { dateStyle: 'full', timeStyle: 'short', timeZone: zone }).format(
        new Date(at),
      );

    /** An organization whose host works from Tokyo (09:00–23:30 there), in `hostLocale` when given. */
    async function tokyoOrg(
      hostLocale?: string | null,
      eventType: Record<string, unknown> = {},
    ): Promise<BookingOrg & { title: string; hostName: string }> {
      const org = await bookingOrg(t, eventType);
      await putSchedule(
        t,
        { token: org.owner.accessToken },
        'Asia/Tokyo',
        [1, 2, 3, 4, 5].map((dayOfWeek) => ({ dayOfWeek, slots: [{ startTime: '09:00', endTime: '23:30' }] })),
      );
      if (hostLocale !== undefined) {
        const patched = await t.http.patch('/v1/users/me', { locale: hostLocale }, { token: org.owner.accessToken });
        expect(patched.status).toBe(200);
      }
      const title = (await t.http.get(`/v1/event-types/${org.eventTypeId}`, { apiKey: org.apiKey })).body.eventType.title as string;
      const { user } = (await t.http.get('/v1/users/me', { token: org.owner.accessToken })).body;
      return { ...org, title, hostName: [user.firstName, user.lastName].filter(Boolean).join(' ') || org.owner.email };
    }

    const mailTo = (email: string, subject: string): Promise<ReceivedMail> =>
      smtp.waitForMail((m) => m.envelope.to.includes(email) && m.parsed.subject === subject, 10_000);

    it.each(LOCALES.map((locale, i) => [locale, LOCALES[(i + 3) % LOCALES.length]] as const))(
      'attendee in %s (São Paulo), host in %s (Tokyo): each mail, its dates and its .ics in the reader’s language and zone',
      async (attendeeLocale, hostLocale) => {
        const org = await tokyoOrg(hostLocale);
        const email = `reader-${attendeeLocale.toLowerCase()}@example.com`;
        const startsAt = '2027-03-02T10:00:00.000Z';
        const booked = await t.http.post(
          '/v1/bookings',
          bookingBody(org.eventTypeId, startsAt, {
            timezone: 'America/Sao_Paulo',
            attendee: { email, firstName: 'Ana', locale: attendeeLocale },
          }),
          { apiKey: org.apiKey },
        );
        expect(booked.status).toBe(201);
        expect(booked.body.booking.attendee.locale).toBe(attendeeLocale);
        const { id } = booked.body.booking;
        expect((await t.http.get(`/v1/bookings/${id}`, { apiKey: org.apiKey })).body.booking.attendee.locale).toBe(attendeeLocale);

        const toAttendee = await mailTo(email, message(attendeeLocale, 'subject.confirmation', { title: org.title }));
        const toHost = await mailTo(org.owner.email, message(hostLocale, 'subject.confirmation', { title: org.title }));
        const attendeeWhen = message(attendeeLocale, 'zoned', {
          datetime: intl(attendeeLocale, 'America/Sao_Paulo', startsAt),
          zone: 'America/Sao_Paulo',
        });
        const hostWhen = message(hostLocale, 'zoned', { datetime: intl(hostLocale, 'Asia/Tokyo', startsAt), zone: 'Asia/Tokyo' });
        expect(toAttendee.parsed.text).toContain(message(attendeeLocale, 'when', { when: attendeeWhen }));
        expect(toAttendee.parsed.text).toContain(message(attendeeLocale, 'lead.confirmation'));
        expect(toHost.parsed.text).toContain(message(hostLocale, 'when', { when: hostWhen }));
        expect(toHost.parsed.text).toContain(message(hostLocale, 'lead.confirmation'));
        expect(toHost.parsed.text).not.toContain(attendeeWhen);
        // The .ics: SUMMARY and DESCRIPTION in the reader's language, the same event (UID, instant) for both.
        const attendeeEvent = calendarOf(toAttendee.parsed);
        const hostEvent = calendarOf(toHost.parsed);
        expect(attendeeEvent).toMatchObject({
          uid: id,
          summary: message(attendeeLocale, 'icsSummary', { title: org.title, names: org.hostName }),
        });
        expect(hostEvent).toMatchObject({
          uid: id,
          summary: message(hostLocale, 'icsSummary', { title: org.title, names: 'Ana' }),
        });
        expect(attendeeEvent.start.toISOString()).toBe(startsAt);

        // Cancelled by the attendee: the cancellation in each reader's language too.
        await t.http.post(`/v1/bookings/${id}/cancel`, { token: booked.body.booking.confirmationToken });
        await mailTo(email, message(attendeeLocale, 'subject.cancellation', { title: org.title }));
        await mailTo(org.owner.email, message(hostLocale, 'subject.cancellation', { title: org.title }));
      },
    );

    it('falls back by BCP 47 lookup: de-AT reads de (dates as Intl writes de-AT), pt reads pt-BR', async () => {
      const org = await tokyoOrg();
      for (const [tag, catalog, day] of [
        ['de-AT', 'de', '2027-03-03T10:00:00.000Z'],
        ['pt', 'pt-BR', '2027-03-03T11:00:00.000Z'],
      ] as const) {
        const email = `lookup-${tag.toLowerCase()}@example.com`;
        const booked = await t.http.post(
          '/v1/bookings',
          bookingBody(org.eventTypeId, day, { timezone: 'Europe/Vienna', attendee: { email, locale: tag } }),
          { apiKey: org.apiKey },
        );
        expect(booked.body.booking.attendee.locale).toBe(tag);
        const mail = await mailTo(email, message(catalog, 'subject.confirmation', { title: org.title }));
        expect(mail.parsed.text).toContain(intl(tag, 'Europe/Vienna', day));
        expect(mail.parsed.text).toContain(message(catalog, 'lead.confirmation'));
      }
      // The host has no locale of its own: the organization's default (en).
      await mailTo(org.owner.email, message('en', 'subject.confirmation', { title: org.title }));
    });

    it('an unknown locale reads the organization’s defaultLocale, else en; the host without a locale reads the default too', async () => {
      const org = await tokyoOrg(null);
      const organization = `/v1/organizations/${org.owner.organizationId}`;
      expect((await t.http.get(organization, { token: org.owner.accessToken })).body.organization.defaultLocale).toBe('en');
      // Unknown, default en: English.
      const first = await t.http.post(
        '/v1/bookings',
        bookingBody(org.eventTypeId, '2027-03-04T10:00:00Z', { attendee: { email: 'unknown-en@example.com', locale: 'zz' } }),
        { apiKey: org.apiKey },
      );
      expect(first.status).toBe(201);
      await mailTo('unknown-en@example.com', message('en', 'subject.confirmation', { title: org.title }));
      // The organization's default becomes French: unknown tags and the host (no locale) read French.
      const patched = await t.http.patch(organization, { name: 'Lingua', defaultLocale: 'fr' }, { token: org.owner.accessToken });
      expect(patched.status).toBe(200);
      expect(patched.body.organization.defaultLocale).toBe('fr');
      expect((await t.http.get('/v1/users/me', { token: org.owner.accessToken })).body.organization.defaultLocale).toBe('fr');
      await t.http.post(
        '/v1/bookings',
        bookingBody(org.eventTypeId, '2027-03-04T11:00:00Z', { attendee: { email: 'unknown-fr@example.com', locale: 'zz' } }),
        { apiKey: org.apiKey },
      );
      await mailTo('unknown-fr@example.com', message('fr', 'subject.confirmation', { title: org.title }));
      const toHost = await mailTo(org.owner.email, message('fr', 'subject.confirmation', { title: org.title }));
      expect(toHost.parsed.text).toContain(intl('fr', 'Asia/Tokyo', '2027-03-04T11:00:00Z'));
      // Without a locale at all: the default too.
      await t.http.post(
        '/v1/bookings',
        bookingBody(org.eventTypeId, '2027-03-04T12:00:00Z', { attendee: { email: 'no-locale@example.com' } }),
        { apiKey: org.apiKey },
      );
      await mailTo('no-locale@example.com', message('fr', 'subject.confirmation', { title: org.title }));
      // Only the catalogs' locales are defaults.
      const refused = await t.http.patch(organization, { name: 'Lingua', defaultLocale: 'xx' }, { token: org.owner.accessToken });
      expect(refused.status).toBe(400);
      expect(refused.body.details.map((d: { field: string }) => d.field)).toEqual(['defaultLocale']);
      // A rename alone keeps the default.
      const renamed = await t.http.patch(organization, { name: 'Lingua SA' }, { token: org.owner.accessToken });
      expect([renamed.status, renamed.body.organization.defaultLocale]).toEqual([200, 'fr']);
    });

    it('refuses a malformed attendee.locale with 400 naming attendee.locale (every booking route shares the attendee), keeps a good one canonical', async () => {
      const org = await tokyoOrg();
      for (const locale of ['not a locale', 'en_US', 'x', 42, '']) {
        const res = await t.http.post(
          '/v1/bookings',
          bookingBody(org.eventTypeId, '2027-03-05T10:00:00Z', { attendee: { email: 'bad@example.com', locale } }),
          { apiKey: org.apiKey },
        );
        expect({ locale, status: res.status, code: res.body.code }).toEqual({ locale, status: 400, code: 'VALIDATION_ERROR' });
        expect(res.body.details.map((d: { field: string }) => d.field)).toEqual(['attendee.locale']);
      }
      // Kept in its canonical form.
      const res = await t.http.post(
        '/v1/bookings',
        bookingBody(org.eventTypeId, '2027-03-05T10:00:00Z', { attendee: { email: 'canonical@example.com', locale: 'PT-br' } }),
        { apiKey: org.apiKey },
      );
      expect(res.body.booking.attendee.locale).toBe('pt-BR');
    });

    it('PATCH /users/me takes locale (canonical BCP 47; null: the organization’s default) and GET /users/me shows it', async () => {
      const org = await tokyoOrg();
      const auth = { token: org.owner.accessToken };
      expect((await t.http.get('/v1/users/me', auth)).body.user.locale).toBeNull();
      const set = await t.http.patch('/v1/users/me', { locale: 'de-at' }, auth);
      expect(set.body.user.locale).toBe('de-AT');
      expect((await t.http.get('/v1/users/me', auth)).body.user.locale).toBe('de-AT');
      expect((await t.http.get('/v1/users/me', { apiKey: org.apiKey })).body.user.locale).toBe('de-AT');
      const bad = await t.http.patch('/v1/users/me', { locale: 'de_AT' }, auth);
      expect(bad.status).toBe(400);
      expect(bad.body.details.map((d: { field: string }) => d.field)).toEqual(['locale']);
      expect((await t.http.patch('/v1/users/me', { locale: null }, auth)).body.user.locale).toBeNull();
      expect((await t.http.get('/v1/users/me', auth)).body.user.locale).toBeNull();
    });

    it('declines, marks no-shows and invites in the reader’s language', async () => {
      const org = await tokyoOrg('ja', { requiresConfirmation: true });
      const email = 'declined-it@example.com';
      const booked = await t.http.post(
        '/v1/bookings',
        bookingBody(org.eventTypeId, '2027-03-08T10:00:00Z', { attendee: { email, locale: 'it' } }),
        { apiKey: org.apiKey },
      );
      await mailTo(email, message('it', 'subject.pending', { title: org.title }));
      await mailTo(org.owner.email, message('ja', 'subject.pending', { title: org.title }));
      await t.http.post(`/v1/bookings/${booked.body.booking.id}/decline`, {}, { apiKey: org.apiKey });
      const declined = await mailTo(email, message('it', 'subject.declined', { title: org.title }));
      expect(declined.parsed.text).toContain(message('it', 'lead.declined'));

      // A confirmed booking whose meeting started: the attendee marked as absent is told, in Dutch.
      const plain = await tokyoOrg('ja');
      const met = await t.http.post(
        '/v1/bookings',
        bookingBody(plain.eventTypeId, '2027-03-08T10:00:00Z', { attendee: { email: 'noshow-nl@example.com', locale: 'nl' } }),
        { apiKey: plain.apiKey },
      );
      // An invitation reads the organization's default (the invitee has no locale yet), its expiry as Intl writes it.
      const organization = `/v1/organizations/${plain.owner.organizationId}`;
      await t.http.patch(organization, { name: 'Lingua', defaultLocale: 'es' }, { token: plain.owner.accessToken });
      const invited = await t.http.post(
        `${organization}/members`,
        { email: 'invitee-es@example.com', role: 'member' },
        { token: plain.owner.accessToken },
      );
      expect(invited.status).toBe(201);
      const invitation = await smtp.waitForMail((m) => m.envelope.to.includes('invitee-es@example.com'), 10_000);
      const name = (await t.http.get(organization, { token: plain.owner.accessToken })).body.organization.name as string;
      expect(invitation.parsed.subject).toBe(message('es', 'invitation.subject', { organization: name }));
      const expires = new Date(Date.parse(t.clock.now().toISOString()) + 7 * 24 * 3600 * 1000);
      expect(invitation.parsed.text).toContain(intl('es', 'UTC', expires));
      t.clock.set('2027-03-08T10:10:00Z');
      const marked = await t.http.post(`/v1/bookings/${met.body.booking.id}/no-show`, { party: 'attendee' }, { apiKey: plain.apiKey });
      expect(marked.status).toBe(200);
      const noShow = await mailTo('noshow-nl@example.com', message('nl', 'subject.noShow', { title: plain.title }));
      expect(noShow.parsed.text).toContain(message('nl', 'lead.noShow', { party: 'attendee' }));
    });
  });
});
