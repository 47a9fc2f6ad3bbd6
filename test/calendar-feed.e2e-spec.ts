import ical, { type VEvent } from 'node-ical';
import { startTestApp, type TestApp } from './support/app.js';
import { bookingBody, bookingOrg, type BookingOrg } from './support/bookings.js';
import { addMember } from './support/factories.js';
import { call } from './support/outage.js';

/** The outbound feed (api-rules.md § Calendars): a member subscribes to the bookings it hosts. */
describe('calendar feed', () => {
  let t: TestApp;
  let org: BookingOrg;

  beforeAll(async () => {
    t = await startTestApp({ env: { PUBLIC_URL: 'https://book.example.test' } });
    org = await bookingOrg(t, { requiresConfirmation: false, title: 'Intro call' });
  });

  afterAll(async () => {
    await t.close();
  });

  const path = (url: string): string => new URL(url).pathname;

  it('gives a stable secret URL under PUBLIC_URL that serves the member’s live bookings as iCalendar, with an ETag', async () => {
    const auth = { token: org.owner.accessToken };
    const first = await t.http.get('/v1/users/me/calendar-feed', auth);
    expect(first.status).toBe(200);
    expect(first.body.url).toMatch(/^https:\/\/book\.example\.test\/v1\/calendar-feeds\/[A-Za-z0-9_-]{43}\.ics$/);
    expect((await t.http.get('/v1/users/me/calendar-feed', auth)).body.url).toBe(first.body.url);

    const live = await t.http.post('/v1/bookings', bookingBody(org.eventTypeId, '2027-03-02T10:00:00Z'), { apiKey: org.apiKey });
    await t.http.post('/v1/bookings', bookingBody(org.eventTypeId, '2027-03-02T11:00:00Z'), { apiKey: org.testKey });
    const cancelled = await t.http.post('/v1/bookings', bookingBody(org.eventTypeId, '2027-03-02T12:00:00Z'), { apiKey: org.apiKey });
    await t.http.post(`/v1/bookings/${cancelled.body.booking.id}/cancel`, {}, { apiKey: org.apiKey });

    const feed = await call(`${t.url}${path(first.body.url)}`);
    expect(feed.status).toBe(200);
    const text = String(feed.body);
    expect(text).toContain('BEGIN:VCALENDAR');
    expect(text).toContain(`UID:${live.body.booking.id}`);
    expect(text).toContain('STATUS:CONFIRMED');
    expect(text).toContain('SUMMARY:Intro call with Ann Attendee');
    expect(text.match(/BEGIN:VEVENT/g)).toHaveLength(1); // not the test-mode one, not the cancelled one
    const res = await fetch(`${t.url}${path(first.body.url)}`);
    expect(res.headers.get('content-type')).toBe('text/calendar; charset=utf-8');
    const etag = res.headers.get('etag')!;
    expect((await fetch(`${t.url}${path(first.body.url)}`, { headers: { 'if-none-match': etag } })).status).toBe(304);
    // RFC 9110: the weak comparison, `*` and lists (the fuzzer found only an exact strong tag answered 304).
    for (const [ifNoneMatch, status] of [
      [`W/${etag}`, 304],
      ['*', 304],
      [`"other", ${etag}`, 304],
      [`"other", W/"x"`, 200],
      ['"other"', 200],
    ] as const) {
      const answer = await fetch(`${t.url}${path(first.body.url)}`, { headers: { 'if-none-match': ifNoneMatch } });
      expect({ ifNoneMatch, status: answer.status }).toEqual({ ifNoneMatch, status });
    }
    // Its errors are the API's error JSON, as the document now says.
    const missing = await t.http.get(`/v1/calendar-feeds/${'A'.repeat(43)}.ics`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toContain('application/json');
  });

  it('is read by another iCalendar parser (node-ical): UIDs, STATUS, times and summaries as booked', async () => {
    const pending = await bookingOrg(t, { requiresConfirmation: true, title: 'Review' });
    const confirmed = await t.http.post('/v1/bookings', bookingBody(org.eventTypeId, '2027-04-06T09:00:00Z'), { apiKey: org.apiKey });
    const requested = await t.http.post('/v1/bookings', bookingBody(pending.eventTypeId, '2027-04-06T13:30:00Z'), {
      apiKey: pending.apiKey,
    });
    expect([confirmed.status, requested.status]).toEqual([201, 201]);

    const eventsOf = async (owner: BookingOrg['owner']): Promise<VEvent[]> => {
      const url = (await t.http.get('/v1/users/me/calendar-feed', { token: owner.accessToken })).body.url;
      const parsed = ical.sync.parseICS(String((await call(`${t.url}${path(url)}`)).body));
      return Object.values(parsed).filter((component): component is VEvent => component?.type === 'VEVENT');
    };
    const own = (await eventsOf(org.owner)).find((event) => event.uid === confirmed.body.booking.id);
    expect(own).toBeDefined();
    expect(own!.status).toBe('CONFIRMED');
    expect(own!.start.toISOString()).toBe('2027-04-06T09:00:00.000Z');
    expect(own!.end?.toISOString()).toBe(confirmed.body.booking.endsAt);
    expect(own!.summary).toBe('Intro call with Ann Attendee');

    const [tentative] = await eventsOf(pending.owner);
    expect(tentative).toMatchObject({ uid: requested.body.booking.id, status: 'TENTATIVE', summary: 'Review with Ann Attendee' });
    expect(tentative.start.toISOString()).toBe('2027-04-06T13:30:00.000Z');
    expect(tentative.end?.toISOString()).toBe(requested.body.booking.endsAt);
  });

  it('rotates: the old URL answers 404 at once; unknown tokens, and other members’ bookings, stay out', async () => {
    const auth = { token: org.owner.accessToken };
    const old = (await t.http.get('/v1/users/me/calendar-feed', auth)).body.url;
    const rotated = await t.http.post('/v1/users/me/calendar-feed/rotate', undefined, auth);
    expect(rotated.status).toBe(200);
    expect(rotated.body.url).not.toBe(old);
    expect((await call(`${t.url}${path(old)}`)).status).toBe(404);
    expect((await call(`${t.url}${path(rotated.body.url)}`)).status).toBe(200);
    expect((await call(`${t.url}/v1/calendar-feeds/${'A'.repeat(43)}.ics`)).status).toBe(404);
    expect((await call(`${t.url}/v1/calendar-feeds/not-a-token`)).status).toBe(404);

    const member = await addMember(t, org.owner.accessToken, org.owner.organizationId, 'member');
    const own = (await t.http.get('/v1/users/me/calendar-feed', { token: member.accessToken })).body.url;
    expect(own).not.toBe(rotated.body.url);
    expect(String((await call(`${t.url}${path(own)}`)).body)).not.toContain('BEGIN:VEVENT');
    // API keys have no "me" with a calendar: the feed is for sessions only.
    expect((await t.http.get('/v1/users/me/calendar-feed', { apiKey: org.apiKey })).status).toBe(403);
  });
});
