import pg from 'pg';
import { Writable } from 'node:stream';
import { DataSource } from 'typeorm';
import { PeriodicJobs } from '../apps/api/src/jobs/index.js';
import { createRootLogger } from '../apps/api/src/logging/logger.js';
import { startTestApp, type TestApp } from './support/app.js';
import { dumpAllRows } from './support/database.js';
import { bookingBody, bookingOrg, type BookingOrg } from './support/bookings.js';
import { addMember, createApiKey, registerOwner } from './support/factories.js';
import { HttpClient } from './support/http.js';
import { createEventType } from './support/scheduling.js';
import { createWebhook, eventually, WebhookReceiver } from './support/webhooks.js';

const SHOP = 'https://shop.example.com';
const WEEKLY = { frequency: 'weekly', interval: 1, maxCount: 4 };

/** What identifies the attendee: none of it may remain anywhere after the erasure (contract § 18). */
const PERSON = {
  email: 'zebulon.quixotic@example.com',
  firstName: 'Zebulon',
  lastName: 'Quixotic',
  phone: '+15550001234',
  answer: 'Plumbus Holdings',
  notes: 'allergic to marzipan',
  zone: 'Pacific/Chatham',
};

const ERASED = { email: 'erased@invalid', firstName: 'Erased attendee', lastName: null, phone: null, locale: null };

/** Metadata of the attendee's booking: the values naming the person (any case) are erased, the keys and the rest stay. */
const METADATA = { crm: `mailto:${PERSON.email.toUpperCase()}`, contact: 'Mr QUIXOTIC', order: 'ORD-4711' };
const ERASED_METADATA = { crm: '[erased]', contact: '[erased]', order: 'ORD-4711' };

/** Attendee erasure and keeping only what is needed (contract § 18), through HTTP, on two instances of the service. */
describe('attendee erasure (contract § 18)', () => {
  const logLines: string[] = [];
  let a: TestApp;
  let b: TestApp;
  let db: DataSource;
  let receiver: WebhookReceiver;
  let org: BookingOrg;
  let pk: string;

  const count = async (sql: string, values: unknown[]): Promise<number> => Number(((await db.query(sql, values)) as { n: string }[])[0].n);

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logLines.push(chunk.toString());
        done();
      },
    });
    a = await startTestApp({ logger: createRootLogger('info', sink), env: { REMINDERS_POLL_MS: '100' } });
    // A second instance on the same database and clock (the race below books on it).
    b = await startTestApp({ databaseUrl: a.databaseUrl, clock: a.clock, env: { DATA_DIR: a.config.dataDir, REMINDERS_POLL_MS: '100' } });
    db = a.app.get(DataSource);
    org = await bookingOrg(a, {
      questions: [{ id: 'company', label: 'Company', type: 'text', required: true }],
      recurrence: WEEKLY,
      bookingWindowDays: 365,
      reminders: [{ minutesBefore: 60, recipients: ['attendee', 'host'] }],
    });
    pk = (await createApiKey(a.http, org.owner.accessToken, { kind: 'publishable', allowedOrigins: [SHOP] })).apiKey;
    const hook = await createWebhook(a.http, { apiKey: org.apiKey }, { url: receiver.url('/live'), events: ['*'] });
    receiver.expectSecret('/live', hook.secret);
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await receiver?.stop();
  });

  const attendee = (email = PERSON.email) => ({ email, firstName: PERSON.firstName, lastName: PERSON.lastName, phone: PERSON.phone });
  const book = (t: TestApp, key: string, startTime: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
    t.http.post(
      '/v1/bookings',
      bookingBody(org.eventTypeId, startTime, {
        attendee: attendee(),
        timezone: PERSON.zone,
        notes: PERSON.notes,
        answers: { company: PERSON.answer },
        ...extra,
      }),
      { apiKey: key, headers },
    );
  const erase = (t: TestApp, auth: { token?: string; apiKey?: string }, body: unknown) => t.http.post('/v1/attendees/erase', body, auth);

  describe('erasing', () => {
    const ids: Record<string, string> = {};
    let other: BookingOrg;
    let otherBookingId: string;
    let liveHoldId: string;
    let firstBody: Record<string, unknown>;
    let publicBody: Record<string, unknown>;
    const keyedFromShop = () => ({ apiKey: pk, headers: { origin: SHOP, 'idempotency-key': 'erase-me-public' } });

    beforeAll(async () => {
      // Live: one booking under an Idempotency-Key, then rescheduled (an event naming both), and a series of 4.
      const first = await book(a, org.apiKey, '2027-03-02T09:00:00Z', { metadata: METADATA }, { 'idempotency-key': 'erase-me-1' });
      expect(first.status).toBe(201);
      firstBody = bookingBody(org.eventTypeId, '2027-03-02T09:00:00Z', {
        attendee: attendee(),
        timezone: PERSON.zone,
        notes: PERSON.notes,
        answers: { company: PERSON.answer },
        metadata: METADATA,
      });
      const moved = await a.http.post(
        `/v1/bookings/${first.body.booking.id}/reschedule`,
        { newStartTime: '2027-03-02T09:30:00Z' },
        { apiKey: org.apiKey },
      );
      expect(moved.status).toBe(200);
      ids.original = first.body.booking.id;
      ids.rescheduled = moved.body.booking.id;
      const series = await book(a, org.apiKey, '2027-03-03T09:00:00Z', { recurrenceCount: 4 });
      expect(series.status).toBe(201);
      ids.series = series.body.booking.id;
      // The attendee cancels the series' last occurrence with its token, giving a reason that names it.
      const last = series.body.series.bookings[3].id as string;
      const cancelledByAttendee = await a.http.post(`/v1/bookings/${last}/cancel`, {
        token: series.body.booking.confirmationToken,
        reason: `${PERSON.firstName} has a conflict`,
      });
      expect(cancelledByAttendee.status).toBe(200);
      ids.cancelledByAttendee = last;
      // Test mode, an address in another case (written before addresses were lowercased).
      const sandbox = await book(a, org.testKey, '2027-03-02T09:00:00Z');
      expect(sandbox.status).toBe(201);
      ids.sandbox = sandbox.body.booking.id;
      await db.query(`UPDATE bookings SET attendee_email = 'Zebulon.Quixotic@Example.COM' WHERE id = $1`, [ids.sandbox]);
      // Through a publishable key's hold, from the attendee's browser; and a hold the attendee still has.
      const fromShop = { apiKey: pk, headers: { origin: SHOP } };
      const held = await a.http.post(
        '/v1/public/holds',
        { eventTypeId: org.eventTypeId, startTime: '2027-03-04T13:00:00Z', timezone: 'UTC' },
        fromShop,
      );
      expect(held.status).toBe(201);
      publicBody = {
        eventTypeId: org.eventTypeId,
        startTime: '2027-03-04T13:00:00Z',
        timezone: PERSON.zone,
        attendee: { email: PERSON.email, firstName: PERSON.firstName, lastName: PERSON.lastName },
        answers: { company: PERSON.answer },
        notes: PERSON.notes,
        holdId: held.body.hold.id,
        holdToken: held.body.holdToken,
      };
      const publicBooking = await a.http.post('/v1/public/bookings', publicBody, keyedFromShop());
      expect(publicBooking.status).toBe(201);
      ids.public = publicBooking.body.booking.id;
      const stillHeld = await a.http.post(
        '/v1/public/holds',
        { eventTypeId: org.eventTypeId, startTime: '2027-03-04T15:00:00Z', timezone: 'UTC' },
        fromShop,
      );
      expect(stillHeld.status).toBe(201);
      liveHoldId = stillHeld.body.hold.id;
      // Someone else, in the same organization; the same person in another organization.
      const someoneElse = await a.http.post(
        '/v1/bookings',
        bookingBody(org.eventTypeId, '2027-03-05T09:00:00Z', { answers: { company: 'Other Co' } }),
        {
          apiKey: org.apiKey,
        },
      );
      expect(someoneElse.status).toBe(201);
      ids.someoneElse = someoneElse.body.booking.id;
      other = await bookingOrg(a);
      const theirs = await a.http.post('/v1/bookings', bookingBody(other.eventTypeId, '2027-03-02T09:00:00Z', { attendee: attendee() }), {
        apiKey: other.apiKey,
      });
      expect(theirs.status).toBe(201);
      otherBookingId = theirs.body.booking.id;
      // The events have gone out to the webhook: deliveries hold the attendee's payloads.
      await eventually(
        async () =>
          (await count(`SELECT count(*) AS n FROM webhook_deliveries WHERE organization_id = $1 AND event_type = 'booking.rescheduled'`, [
            org.owner.organizationId,
          ])) > 0 || undefined,
        10_000,
        'deliveries',
      );
    });

    it('keeps the bookings and removes the person from every booking of the organization, both modes, any case', async () => {
      const before = (await a.http.get(`/v1/bookings/${ids.rescheduled}`, { apiKey: org.apiKey })).body.booking;
      const res = await erase(a, { token: org.owner.accessToken }, { email: '  ZEBULON.Quixotic@example.com ' });
      expect(res.status).toBe(200);
      // original + rescheduled + 4 occurrences + public (live), sandbox (test).
      expect(res.body.erased).toMatchObject({ bookings: 8, holds: 1 });
      expect(res.body.erased.mails).toBeGreaterThan(0);
      expect(res.body.erased.deliveries).toBeGreaterThan(0);

      const after = (await a.http.get(`/v1/bookings/${ids.rescheduled}`, { apiKey: org.apiKey })).body.booking;
      expect(after).toMatchObject({
        ...Object.fromEntries(
          ['id', 'eventTypeId', 'hostUserId', 'hostUserIds', 'startsAt', 'endsAt', 'status', 'previousBookingId'].map((k) => [
            k,
            before[k],
          ]),
        ),
        attendee: ERASED,
        timezone: null,
        notes: null,
        answers: [],
      });
      for (const [key, id] of [
        [org.apiKey, ids.original],
        [org.apiKey, ids.series],
        [org.apiKey, ids.public],
        [org.testKey, ids.sandbox],
      ]) {
        const got = (await a.http.get(`/v1/bookings/${id}`, { apiKey: key })).body.booking;
        expect(got).toMatchObject({ attendee: ERASED, timezone: null, notes: null, answers: [] });
      }
      const series = await a.http.get(
        `/v1/series/${(await a.http.get(`/v1/bookings/${ids.series}`, { apiKey: org.apiKey })).body.booking.seriesId}`,
        {
          apiKey: org.apiKey,
        },
      );
      expect(series.body.series.timezone).toBeNull();
      // Still there, still blocking their times.
      const check = await a.http.get(`/v1/availability/check?eventTypeId=${org.eventTypeId}&startTime=2027-03-02T09:30:00Z`, {
        apiKey: org.apiKey,
      });
      expect(check.body.available).toBe(false);
      // Not findable by the address, in either mode.
      for (const key of [org.apiKey, org.testKey]) {
        const found = await a.http.get(`/v1/bookings?attendeeEmail=${encodeURIComponent(PERSON.email)}`, { apiKey: key });
        expect(found.body.totalCount).toBe(0);
      }
      // Someone else's booking, and the other organization's, are as they were.
      expect((await a.http.get(`/v1/bookings/${ids.someoneElse}`, { apiKey: org.apiKey })).body.booking.attendee.email).toBe(
        'attendee@example.com',
      );
      const theirs = (await a.http.get(`/v1/bookings/${otherBookingId}`, { apiKey: other.apiKey })).body.booking;
      expect(theirs.attendee).toMatchObject({ email: PERSON.email, firstName: PERSON.firstName });
    });

    it('leaves no copy: mails, events, deliveries, stored responses, write-back bodies, holds’ and visitors’ addresses', async () => {
      const orgId = org.owner.organizationId;
      const like = `%${PERSON.email}%`;
      expect(
        await count(
          `SELECT count(*) AS n FROM mail_outbox WHERE organization_id = $1 AND (text_body ILIKE $2 OR text_body LIKE '%Zebulon%' OR array_to_string(recipients, ',') ILIKE $2)`,
          [orgId, like],
        ),
      ).toBe(0);
      expect(await count(`SELECT count(*) AS n FROM domain_events WHERE organization_id = $1 AND data::text ILIKE $2`, [orgId, like])).toBe(
        0,
      );
      expect(
        await count(
          `SELECT count(*) AS n FROM webhook_deliveries WHERE organization_id = $1 AND (body ILIKE $2 OR body LIKE '%Zebulon%')`,
          [orgId, like],
        ),
      ).toBe(0);
      expect(await count(`SELECT count(*) AS n FROM calendar_writes WHERE organization_id = $1 AND ics ILIKE $2`, [orgId, like])).toBe(0);
      // The keys that made the bookings stay, without their answers (a retry replays the booking as it now stands).
      expect(
        await count(
          `SELECT count(*) AS n FROM idempotency_keys WHERE organization_id = $1 AND key IN ('erase-me-1', 'erase-me-public')
              AND response_body ? 'erasedReplay'`,
          [orgId],
        ),
      ).toBe(2);
      expect(await count(`SELECT count(*) AS n FROM visitor_bookings WHERE booking_id = $1`, [ids.public])).toBe(0);
      expect(await count(`SELECT count(*) AS n FROM holds WHERE id = $1 AND client_ip IS NULL`, [liveHoldId])).toBe(1);
      // The hosts' calendars get the erased booking in place of what was queued.
      expect(
        await count(`SELECT count(*) AS n FROM calendar_writes WHERE booking_id = $1 AND action = 'put' AND ics LIKE '%Erased attendee%'`, [
          ids.rescheduled,
        ]),
      ).toBe(1);
      // Someone else's mails and events are untouched.
      expect(
        await count(`SELECT count(*) AS n FROM domain_events WHERE organization_id = $1 AND data::text LIKE '%Other Co%'`, [orgId]),
      ).toBeGreaterThan(0);
    });

    it('clears the reasons, the metadata values naming the person and the addresses of the attendee’s own audit entries', async () => {
      const cancelled = (await a.http.get(`/v1/bookings/${ids.cancelledByAttendee}`, { apiKey: org.apiKey })).body.booking;
      expect({ reason: cancelled.cancellationReason, by: cancelled.cancelledBy }).toEqual({ reason: null, by: 'attendee' });
      // A reschedule's own marker names no one and stays; the metadata keeps its keys and what names no one.
      const original = (await a.http.get(`/v1/bookings/${ids.original}`, { apiKey: org.apiKey })).body.booking;
      expect({ reason: original.cancellationReason, metadata: original.metadata }).toEqual({
        reason: 'rescheduled',
        metadata: ERASED_METADATA,
      });

      const [publishable] = (await db.query(`SELECT id FROM api_keys WHERE organization_id = $1 AND kind = 'publishable'`, [
        org.owner.organizationId,
      ])) as { id: string }[];
      type Entry = { action: string; actor: { type: string; id: string | null }; ip: string | null; userAgent: string | null };
      const entries = async (query: string): Promise<Entry[]> =>
        (await a.http.get(`/v1/audit-log?${query}&limit=200`, { token: org.owner.accessToken })).body.entries;
      // The attendee's token and its browser's key: the entries stay, without address or user agent.
      const byAttendee = (await entries(`resourceId=${ids.cancelledByAttendee}`)).filter((entry) => entry.actor.type === 'attendee');
      expect(byAttendee.map(({ action, ip, userAgent }) => ({ action, ip, userAgent }))).toEqual([
        { action: 'booking.cancelled', ip: null, userAgent: null },
      ]);
      const byBrowser = (await entries(`resourceId=${ids.public}`)).filter((entry) => entry.actor.id === publishable.id);
      expect(byBrowser.map(({ action, ip, userAgent }) => ({ action, ip, userAgent }))).toEqual([
        { action: 'booking.created', ip: null, userAgent: null },
      ]);
      const holds = await entries(`actorId=${publishable.id}&action=hold.created`);
      expect(holds.map(({ ip, userAgent }) => ({ ip, userAgent }))).toEqual([
        { ip: null, userAgent: null },
        { ip: null, userAgent: null },
      ]);
      // The organization's own requests (its secret key) keep theirs.
      const made = await entries(`resourceId=${ids.original}&action=booking.created`);
      expect(made).toHaveLength(1);
      expect(made[0].ip).not.toBeNull();
    });

    it('replays an Idempotency-Key that made an erased booking with the booking as it now stands, never booking again', async () => {
      const before = await count(`SELECT count(*) AS n FROM bookings WHERE organization_id = $1`, [org.owner.organizationId]);
      const keyed = { apiKey: org.apiKey, headers: { 'idempotency-key': 'erase-me-1' } };
      const again = await a.http.post('/v1/bookings', firstBody, keyed);
      expect(again.status).toBe(201);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.body.booking).toMatchObject({
        id: ids.original,
        status: 'cancelled',
        attendee: ERASED,
        timezone: null,
        notes: null,
        answers: [],
        metadata: ERASED_METADATA,
      });
      expect(again.body.booking.confirmationToken).toBeUndefined();
      // On the other instance, through the publishable key: the attendee's view of the erased booking.
      const publicAgain = await b.http.post('/v1/public/bookings', publicBody, keyedFromShop());
      expect(publicAgain.status).toBe(201);
      expect(publicAgain.headers.get('idempotent-replayed')).toBe('true');
      expect(publicAgain.body.booking).toMatchObject({ id: ids.public, attendee: ERASED, timezone: null, answers: [] });
      // Another body under the key is still refused.
      expect((await a.http.post('/v1/bookings', { ...firstBody, notes: 'other' }, keyed)).status).toBe(422);
      expect(await count(`SELECT count(*) AS n FROM bookings WHERE organization_id = $1`, [org.owner.organizationId])).toBe(before);
      for (const text of [JSON.stringify(again.body), JSON.stringify(publicAgain.body)]) {
        for (const trace of [PERSON.email, PERSON.firstName, PERSON.lastName, PERSON.zone, PERSON.answer, PERSON.notes]) {
          expect({ trace, found: text.toLowerCase().includes(trace.toLowerCase()) }).toEqual({ trace, found: false });
        }
      }
    });

    it('sends attendee.erased with the erased bookings’ ids (this mode’s)', async () => {
      await receiver.waitFor(() => receiver.at('/live').some((r) => r.payload?.type === 'attendee.erased'), 8000, 'attendee.erased');
      const event = receiver.at('/live').find((r) => r.payload?.type === 'attendee.erased')!;
      expect(event.verified).toBe(true);
      const live = (await db.query(
        `SELECT id FROM bookings WHERE organization_id = $1 AND livemode AND attendee_email = 'erased@invalid'`,
        [org.owner.organizationId],
      )) as { id: string }[];
      expect(event.payload.data).toEqual({ bookingIds: expect.any(Array) });
      expect([...event.payload.data.bookingIds].sort()).toEqual(live.map((row) => row.id).sort());
      expect(JSON.stringify(event.payload)).not.toContain(PERSON.email);
    });

    it('is idempotent: a repeat erases nothing more', async () => {
      const again = await erase(a, { apiKey: org.apiKey }, { email: PERSON.email });
      expect(again.status).toBe(200);
      expect(again.body).toEqual({ erased: { bookings: 0, holds: 0, mails: 0, deliveries: 0 } });
      // The erased placeholder is no one's address (`.invalid` is reserved): it cannot be asked for.
      const placeholder = await erase(a, { apiKey: org.apiKey }, { email: 'erased@invalid' });
      expect({ status: placeholder.status, code: placeholder.body.code }).toEqual({ status: 400, code: 'VALIDATION_ERROR' });
    });

    it('an erased booking mails no one at the erased address afterwards (cancel, reminder)', async () => {
      const mailsBefore = await count(`SELECT count(*) AS n FROM mail_outbox WHERE 'erased@invalid' = ANY(recipients)`, []);
      expect(mailsBefore).toBe(0);
      const cancelled = await a.http.post(`/v1/bookings/${ids.public}/cancel`, { reason: 'no longer' }, { apiKey: org.apiKey });
      expect(cancelled.status).toBe(200);
      expect(await count(`SELECT count(*) AS n FROM mail_outbox WHERE 'erased@invalid' = ANY(recipients)`, [])).toBe(0);
      // The host still hears of it, without the person.
      expect(
        await count(`SELECT count(*) AS n FROM mail_outbox WHERE $1 = ANY(about) AND $2 = ANY(recipients)`, [ids.public, org.owner.email]),
      ).toBe(1);
    });

    it('the other organization erases its own copy; after that the database dump and the service’s log name no one', async () => {
      const res = await erase(a, { token: other.owner.accessToken }, { email: PERSON.email });
      expect(res.body.erased.bookings).toBe(1);
      // Let the workers settle, so the dump sees what they wrote after the erasure.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const stdout = await dumpAllRows(a.databaseUrl);
      expect(stdout).toContain(ids.rescheduled);
      const log = logLines.join('');
      expect(log).toContain('/v1/attendees/erase');
      for (const text of [stdout, log]) {
        for (const trace of [
          PERSON.email,
          'zebulon.quixotic',
          PERSON.firstName,
          PERSON.lastName,
          PERSON.phone,
          PERSON.answer,
          PERSON.notes,
          PERSON.zone,
        ]) {
          expect({ trace, found: text.toLowerCase().includes(trace.toLowerCase()) }).toEqual({ trace, found: false });
        }
      }
    });
  });

  describe('who may erase, and bad input', () => {
    it('refuses a member, a key without bookings:write and a publishable key (403), and no credentials (401)', async () => {
      const member = await addMember(a, org.owner.accessToken, org.owner.organizationId, 'member');
      expect((await erase(a, { token: member.accessToken }, { email: PERSON.email })).status).toBe(403);
      const readOnly = await createApiKey(a.http, org.owner.accessToken, { scopes: ['bookings:read'] });
      expect((await erase(a, { apiKey: readOnly.apiKey }, { email: PERSON.email })).status).toBe(403);
      const raw = new HttpClient(a.url, { checkContract: false });
      expect((await raw.post('/v1/attendees/erase', { email: PERSON.email }, { apiKey: pk, headers: { origin: SHOP } })).status).toBe(403);
      expect((await a.http.post('/v1/attendees/erase', { email: PERSON.email })).status).toBe(401);
      const admin = await addMember(a, org.owner.accessToken, org.owner.organizationId, 'admin');
      expect((await erase(a, { token: admin.accessToken }, { email: 'nobody@example.com' })).body).toEqual({
        erased: { bookings: 0, holds: 0, mails: 0, deliveries: 0 },
      });
    });

    it.each([
      ['missing', {}],
      ['empty', { email: '' }],
      ['malformed', { email: 'not-an-email' }],
      ['a number', { email: 42 }],
      ['an array', { email: [PERSON.email] }],
      ['too long', { email: `${'x'.repeat(250)}@example.com` }],
      ['an unknown field', { email: PERSON.email, name: 'x' }],
      ['hostile', { email: "x'); DELETE FROM bookings; --@example.com" }],
    ])('%s email → 400, nothing erased', async (_name, body) => {
      const res = await erase(a, { apiKey: org.apiKey }, body);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
    });
  });

  it('races a booking for the same address on another instance: each booking is erased whole or made after and kept whole', async () => {
    const email = 'racer@example.com';
    const made: string[] = [];
    for (let round = 0; round < 8; round++) {
      const start = new Date(Date.parse('2027-03-08T09:00:00Z') + round * 30 * 60_000).toISOString();
      const [booked, erased] = await Promise.all([
        b.http.post(
          '/v1/bookings',
          bookingBody(org.eventTypeId, start, { attendee: { email, firstName: 'Racer' }, answers: { company: 'Race Co' } }),
          {
            apiKey: org.apiKey,
          },
        ),
        erase(a, { apiKey: org.apiKey }, { email }),
      ]);
      expect(booked.status).toBe(201);
      expect(erased.status).toBe(200);
      made.push(booked.body.booking.id);
    }
    for (const id of made) {
      const [row] = (await db.query(`SELECT attendee_email, answers::text AS answers FROM bookings WHERE id = $1`, [id])) as {
        attendee_email: string;
        answers: string;
      }[];
      const events = await count(
        `SELECT count(*) AS n FROM domain_events WHERE data #>> '{booking,id}' = $1 AND data::text LIKE '%racer@%'`,
        [id],
      );
      const mails = await count(`SELECT count(*) AS n FROM mail_outbox WHERE $1 = ANY(about)`, [id]);
      const erasedEvent = await count(
        `SELECT count(*) AS n FROM domain_events WHERE type = 'attendee.erased' AND data->'bookingIds' ? $1`,
        [id],
      );
      if (row.attendee_email === 'erased@invalid') {
        expect({ id, answers: row.answers, events, mails, erasedEvent }).toEqual({
          id,
          answers: '[]',
          events: 0,
          mails: 0,
          erasedEvent: 1,
        });
      } else {
        // Made after the erasure looked: whole, with its event and mails, and named by no erasure.
        expect({ id, email: row.attendee_email, events, erasedEvent }).toEqual({ id, email, events: 1, erasedEvent: 0 });
        expect(mails).toBeGreaterThan(0);
      }
    }
    await erase(a, { apiKey: org.apiKey }, { email });
    expect(await count(`SELECT count(*) AS n FROM bookings WHERE attendee_email = $1`, [email])).toBe(0);
  });

  it('races a reschedule of the attendee’s booking on another instance: the new booking is erased too, whichever goes first', async () => {
    const email = 'mover@example.com';
    // The test holds the booking's row so both requests queue behind it in a chosen order, then lets them go.
    const holder = new pg.Client({ connectionString: a.databaseUrl });
    await holder.connect();
    const waiting = async (n: number): Promise<void> => {
      await eventually(
        async () =>
          Number(
            (
              await holder.query(
                `SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
              )
            ).rows[0].n,
          ) >= n || undefined,
        10_000,
        `${n} waiting`,
      );
    };
    try {
      for (const [round, first] of [
        [0, 'reschedule'],
        [1, 'erasure'],
      ] as const) {
        const day = `2027-03-1${round + 5}`;
        const made = await a.http.post(
          '/v1/bookings',
          bookingBody(org.eventTypeId, `${day}T14:00:00Z`, { attendee: { email, firstName: 'Mover' }, answers: { company: 'Move Co' } }),
          { apiKey: org.apiKey },
        );
        expect(made.status).toBe(201);
        await holder.query('BEGIN');
        await holder.query('SELECT id FROM bookings WHERE id = $1 FOR UPDATE', [made.body.booking.id]);
        const reschedule = () =>
          b.http.post(`/v1/bookings/${made.body.booking.id}/reschedule`, { newStartTime: `${day}T15:00:00Z` }, { apiKey: org.apiKey });
        const eraseIt = () => erase(a, { apiKey: org.apiKey }, { email });
        const one = first === 'reschedule' ? reschedule() : eraseIt();
        await waiting(1);
        const two = first === 'reschedule' ? eraseIt() : reschedule();
        await waiting(2);
        await holder.query('COMMIT');
        const [moved, erased] = first === 'reschedule' ? await Promise.all([one, two]) : (await Promise.all([one, two])).reverse();
        expect(moved.status).toBe(200);
        expect(erased.status).toBe(200);
        const replacement = (await a.http.get(`/v1/bookings/${moved.body.booking.id}`, { apiKey: org.apiKey })).body.booking;
        expect({ first, attendee: replacement.attendee, answers: replacement.answers }).toEqual({ first, attendee: ERASED, answers: [] });
        expect(
          await count(`SELECT count(*) AS n FROM domain_events WHERE data::text LIKE '%mover@%' OR data::text LIKE '%Move Co%'`, []),
        ).toBe(0);
      }
    } finally {
      await holder.end();
    }
  });

  describe('keeping only what is needed (on the Clock)', () => {
    it('deletes a hold and its client address once it has ended, and login failures after their window', async () => {
      const fromShop = { apiKey: pk, headers: { origin: SHOP } };
      const held = await a.http.post(
        '/v1/public/holds',
        { eventTypeId: org.eventTypeId, startTime: '2027-03-05T15:00:00Z', timezone: 'UTC' },
        fromShop,
      );
      expect(held.status).toBe(201);
      const holdId = held.body.hold.id;
      const owner = await registerOwner(a.http);
      expect((await a.http.post('/v1/auth/login', { email: owner.email, password: 'wrong password here' })).status).toBe(401);
      const jobs = a.app.get(PeriodicJobs);
      const holds = () => count(`SELECT count(*) AS n FROM holds WHERE id = $1`, [holdId]);
      const occupancy = () => count(`SELECT count(*) AS n FROM booking_hosts WHERE booking_id = $1`, [holdId]);
      const failures = () => count(`SELECT count(*) AS n FROM login_failures WHERE email = $1`, [owner.email]);

      const start = a.clock.now().getTime();
      a.clock.set(new Date(Date.parse(held.body.hold.expiresAt) - 1000).toISOString());
      await jobs.runOnce();
      expect({ holds: await holds(), occupancy: await occupancy(), failures: await failures() }).toEqual({
        holds: 1,
        occupancy: 1,
        failures: 1,
      });

      a.clock.set(new Date(Math.max(Date.parse(held.body.hold.expiresAt), start + 15 * 60_000) + 1000).toISOString());
      const counts = await jobs.runOnce();
      expect(counts['hold-cleanup']).toBeGreaterThanOrEqual(1);
      expect(counts['login-failure-cleanup']).toBeGreaterThanOrEqual(1);
      expect({ holds: await holds(), occupancy: await occupancy(), failures: await failures() }).toEqual({
        holds: 0,
        occupancy: 0,
        failures: 0,
      });
    });
  });

  it('races an erasure with a series’ "cancel following" on another instance, many times: both succeed, never a 500 (no deadlock)', async () => {
    const statuses: number[][] = [];
    for (let round = 0; round < 12; round++) {
      const email = `series-racer-${round}@example.com`;
      const start = new Date(Date.parse('2027-04-05T09:00:00Z') + round * 30 * 60_000).toISOString();
      const series = await a.http.post(
        '/v1/bookings',
        bookingBody(org.eventTypeId, start, {
          attendee: { email, firstName: 'Racer' },
          answers: { company: 'Race Co' },
          recurrenceCount: 4,
        }),
        { apiKey: org.apiKey },
      );
      expect(series.status).toBe(201);
      const second = series.body.series.bookings[1].id as string;
      const [cancelled, erased] = await Promise.all([
        b.http.post(`/v1/bookings/${second}/cancel`, { scope: 'following', reason: 'Racer moved away' }, { apiKey: org.apiKey }),
        erase(a, { apiKey: org.apiKey }, { email }),
      ]);
      statuses.push([cancelled.status, erased.status]);
      expect(await count(`SELECT count(*) AS n FROM bookings WHERE attendee_email = $1`, [email])).toBe(0);
    }
    expect(statuses).toEqual(statuses.map(() => [200, 200]));
  });

  it('another person’s booking that gives the address as an email answer keeps its attendee and loses the answer everywhere', async () => {
    // As a routed booking whose answers came from the erased person's routing response (contract § 22) would.
    const referred = 'Referrer.Only@Example.com';
    const eventTypeId = await createEventType(
      a,
      { apiKey: org.apiKey },
      {
        durationMinutes: 30,
        bookingWindowDays: 365,
        questions: [
          { id: 'referrer', label: 'Referred by', type: 'email' },
          { id: 'company', label: 'Company', type: 'text' },
        ],
      },
    );
    const made = await a.http.post(
      '/v1/bookings',
      bookingBody(eventTypeId, '2027-03-09T10:00:00Z', {
        attendee: { email: 'someone.else@example.com', firstName: 'Someone' },
        answers: { referrer: referred, company: 'Kept Inc' },
      }),
      { apiKey: org.apiKey, headers: { 'idempotency-key': 'answer-names-someone' } },
    );
    expect(made.status).toBe(201);
    const id = made.body.booking.id as string;
    // Where the answer is copied: the hosts' mail and the booking's events (the key's stored response is sealed: its replay below).
    const naming = async (): Promise<number[]> => {
      const like = ['%referrer.only@example.com%'];
      return [
        await count(`SELECT count(*) AS n FROM mail_outbox WHERE lower(text_body) LIKE $1`, like),
        await count(`SELECT count(*) AS n FROM domain_events WHERE lower(data::text) LIKE $1`, like),
      ];
    };
    await eventually(
      async () => ((await naming()).every((n) => n > 0) ? true : undefined),
      10_000,
      'the mails and events naming the answer',
    ).catch(async (error: Error) => {
      throw new Error(`${error.message}: ${JSON.stringify(await naming())}`);
    });

    const erased = await erase(a, { apiKey: org.apiKey }, { email: 'referrer.only@example.com' });
    expect(erased.status).toBe(200);
    expect(erased.body.erased.bookings).toBe(0);
    const got = await a.http.get(`/v1/bookings/${id}`, { apiKey: org.apiKey });
    expect(got.body.booking.attendee.email).toBe('someone.else@example.com');
    expect(got.body.booking.answers).toEqual([
      { id: 'referrer', label: 'Referred by', type: 'email', value: 'erased@invalid' },
      { id: 'company', label: 'Company', type: 'text', value: 'Kept Inc' },
    ]);
    expect(await naming()).toEqual([0, 0]);
    const [told] = (await db.query(`SELECT data FROM domain_events WHERE type = 'attendee.erased' AND data -> 'bookingIds' ? $1`, [
      id,
    ])) as { data: { bookingIds: string[] } }[];
    expect(told.data.bookingIds).toEqual([id]);
    // A retry with the key replays the booking as it now stands.
    const replay = await a.http.post(
      '/v1/bookings',
      bookingBody(eventTypeId, '2027-03-09T10:00:00Z', {
        attendee: { email: 'someone.else@example.com', firstName: 'Someone' },
        answers: { referrer: referred, company: 'Kept Inc' },
      }),
      { apiKey: org.apiKey, headers: { 'idempotency-key': 'answer-names-someone' } },
    );
    expect(replay.body.booking.id).toBe(id);
    expect(JSON.stringify(replay.body).toLowerCase()).not.toContain('referrer.only');
  });

  it('a reminder due after the erasure mails the hosts only, and its event shows the erased booking', async () => {
    // Last (the Clock moves two days on): the erased series' first occurrence starts 2027-03-03 09:00 UTC, its reminder an hour before.
    const [{ id: occurrence }] = (await db.query(
      `SELECT id FROM bookings WHERE organization_id = $1 AND series_id IS NOT NULL AND starts_at = '2027-03-03T09:00:00Z'`,
      [org.owner.organizationId],
    )) as { id: string }[];
    a.clock.set('2027-03-03T08:01:00.000Z');
    await eventually(
      async () =>
        (await count(`SELECT count(*) AS n FROM booking_reminders WHERE booking_id = $1 AND sent_at IS NOT NULL`, [occurrence])) > 0 ||
        undefined,
      10_000,
      'the reminder',
    );
    const mails = (await db.query(`SELECT recipients, text_body FROM mail_outbox WHERE $1 = ANY(about) AND subject LIKE 'Reminder:%'`, [
      occurrence,
    ])) as { recipients: string[]; text_body: string }[];
    expect(mails.map((mail) => mail.recipients)).toEqual([[org.owner.email]]);
    expect(mails[0].text_body).toContain('Erased attendee');
    const [event] = (await db.query(`SELECT data FROM domain_events WHERE type = 'booking.reminder' AND data #>> '{booking,id}' = $1`, [
      occurrence,
    ])) as { data: { booking: { attendee: unknown; answers: unknown } } }[];
    expect(event.data.booking).toMatchObject({ attendee: ERASED, answers: [] });
  });
});
