import ical from 'node-ical';
import { DataSource } from 'typeorm';
import { startTestApp, type TestApp } from './support/app.js';
import { bookingBody, bookingOrg, type BookingOrg, NOW } from './support/bookings.js';
import { putSchedule } from './support/scheduling.js';
import { SmtpTestServer, type ReceivedMail } from './support/smtp.js';
import { createWebhook, eventually, WebhookReceiver } from './support/webhooks.js';

const MINUTE = 60_000;
/** Long enough for several rounds of the sender (REMINDERS_POLL_MS below) and of the mail and webhook workers. */
const QUIET_MS = 800;
const at = (iso: string, minutes = 0): string => new Date(Date.parse(iso) + minutes * MINUTE).toISOString();
const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Reminders (api-rules.md § Reminders) with time through the injectable Clock: one instance takes the requests and
 * sends nothing (RUN_WORKERS=false); a second one on the same database and clock runs the sender, the mail worker and
 * webhook delivery, so a test can stop it to play "no instance ran" and start another.
 */
describe('reminders', () => {
  let api: TestApp;
  let sender: TestApp | undefined;
  let smtp: SmtpTestServer;
  let receiver: WebhookReceiver;
  let org: BookingOrg;

  const startSender = async (): Promise<TestApp> =>
    startTestApp({ databaseUrl: api.databaseUrl, clock: api.clock, env: { SMTP_URL: smtp.url, REMINDERS_POLL_MS: '100' } });

  beforeAll(async () => {
    smtp = await SmtpTestServer.start();
    receiver = await WebhookReceiver.start();
    api = await startTestApp({ env: { RUN_WORKERS: 'false', SMTP_URL: smtp.url, REMINDERS_POLL_MS: '100' } });
    org = await bookingOrg(api, {
      questions: [{ id: 'company', label: 'Company', type: 'text' }],
      reminders: [
        { minutesBefore: 1440, recipients: ['host', 'attendee'] },
        { minutesBefore: 60, recipients: ['attendee'] },
        { minutesBefore: 5, recipients: ['host'] },
      ],
    });
    // The host's schedule is in Tokyo: its reminders show Tokyo time (10:00 UTC is 19:00 there).
    await putSchedule(
      api,
      { token: org.owner.accessToken },
      'Asia/Tokyo',
      [1, 2, 3, 4, 5].map((dayOfWeek) => ({ dayOfWeek, slots: [{ startTime: '09:00', endTime: '23:30' }] })),
    );
    for (const [path, apiKey] of [
      ['/live', org.apiKey],
      ['/sandbox', org.testKey],
    ] as const) {
      const hook = await createWebhook(api.http, { apiKey }, { url: receiver.url(path), events: ['booking.reminder'] });
      receiver.expectSecret(path, hook.secret);
    }
    sender = await startSender();
  }, 60_000);

  afterAll(async () => {
    await sender?.close();
    await api?.close();
    await receiver?.stop();
    await smtp?.stop();
  });

  let day = 0;
  /** A Tuesday-to-Friday 10:00 UTC start of its own (one per call, weeks apart), booked at NOW. */
  function nextStart(): string {
    const week = Math.floor(day / 4);
    const start = at('2027-03-02T10:00:00.000Z', (week * 7 + (day % 4)) * 1440);
    day++;
    return start;
  }

  async function book(
    startsAt: string,
    extra: Record<string, unknown> = {},
    key = org.apiKey,
    eventTypeId = org.eventTypeId,
  ): Promise<string> {
    const res = await api.http.post('/v1/bookings', bookingBody(eventTypeId, startsAt, { timezone: 'Europe/Berlin', ...extra }), {
      apiKey: key,
    });
    expect(res.status).toBe(201);
    return res.body.booking.id as string;
  }

  const reminderMailsOf = (bookingId: string): ReceivedMail[] =>
    smtp.messages.filter((m) => /^Reminder:/.test(m.parsed.subject ?? '') && (m.parsed.text ?? '').includes(bookingId));
  const reminderEventsOf = (bookingId: string, path = '/live'): any[] =>
    receiver.received.filter((r) => r.path === path && r.payload.data.booking.id === bookingId);
  const remindersOf = async (bookingId: string, key = org.apiKey): Promise<any[]> =>
    (await api.http.get(`/v1/bookings/${bookingId}`, { apiKey: key })).body.booking.reminders;

  it('sends each of 1440, 60 and 5 minutes at its time and not before: mails in each recipient’s zone, one verified event each', async () => {
    api.clock.set(NOW);
    const startsAt = nextStart();
    const id = await book(startsAt, { answers: { company: 'Acme' } });
    expect(await remindersOf(id)).toEqual([
      { minutesBefore: 1440, dueAt: at(startsAt, -1440), sentAt: null },
      { minutesBefore: 60, dueAt: at(startsAt, -60), sentAt: null },
      { minutesBefore: 5, dueAt: at(startsAt, -5), sentAt: null },
    ]);

    for (const [minutesBefore, recipients] of [
      [1440, ['attendee@example.com', org.owner.email]],
      [60, ['attendee@example.com']],
      [5, [org.owner.email]],
    ] as const) {
      const due = at(startsAt, -minutesBefore);
      const before = reminderMailsOf(id).length;
      api.clock.set(at(due, -1 / 60)); // a second early
      await pause(QUIET_MS);
      expect({ minutesBefore, mails: reminderMailsOf(id).length, events: reminderEventsOf(id).length }).toEqual({
        minutesBefore,
        mails: before,
        events: [1440, 60, 5].indexOf(minutesBefore),
      });
      api.clock.set(due);
      const event = await eventually(
        async () => reminderEventsOf(id).find((r) => r.payload.data.reminder.minutesBefore === minutesBefore),
        10_000,
        `the ${minutesBefore}-minute event`,
      );
      expect(event.verified).toBe(true);
      expect(event.payload).toMatchObject({ type: 'booking.reminder', data: { booking: { id, status: 'confirmed' } } });
      await eventually(async () => (reminderMailsOf(id).length === before + recipients.length ? true : undefined), 10_000, 'the mails');
      const fresh = reminderMailsOf(id).slice(before);
      expect(fresh.flatMap((m) => m.envelope.to).sort()).toEqual([...recipients].sort());
    }

    const [attendeeMail, hostMail] = ['attendee@example.com', org.owner.email].map((to) =>
      reminderMailsOf(id).find((m) => m.envelope.to.includes(to))!,
    );
    // The attendee's in Berlin (11:00), with the host's name; the host's in Tokyo (19:00), with the answers.
    expect(attendeeMail.parsed.subject).toMatch(/^Reminder: /);
    expect(attendeeMail.parsed.text).toMatch(/11:00 \(Europe\/Berlin\)/);
    expect(attendeeMail.parsed.text).toMatch(/Hosts: /);
    expect(attendeeMail.parsed.text).not.toContain('Company: Acme');
    expect(hostMail.parsed.text).toMatch(/19:00 \(Asia\/Tokyo\)/);
    expect(hostMail.parsed.text).toContain('Company: Acme');
    for (const mail of [attendeeMail, hostMail]) {
      const part = mail.parsed.attachments.find((a) => a.contentType.startsWith('text/calendar'))!;
      const events = Object.values(ical.sync.parseICS(part.content.toString('utf8'))).filter((c) => c?.type === 'VEVENT') as ical.VEvent[];
      expect(events.map((e) => [e.uid, new Date(e.start).toISOString()])).toEqual([[id, startsAt]]);
    }
    await pause(QUIET_MS);
    expect(reminderEventsOf(id).map((r) => r.payload.data.reminder)).toEqual([
      { minutesBefore: 1440 },
      { minutesBefore: 60 },
      { minutesBefore: 5 },
    ]);
    expect(new Set(reminderEventsOf(id).map((r) => r.webhookId)).size).toBe(3);
    expect((await remindersOf(id)).map((r: { sentAt: string | null }) => r.sentAt)).toEqual([
      at(startsAt, -1440),
      at(startsAt, -60),
      at(startsAt, -5),
    ]);
  });

  it('sends late what fell due while no instance ran, before the start; never after it', async () => {
    api.clock.set(NOW);
    const late = nextStart();
    const never = nextStart();
    const lateId = await book(late);
    const neverId = await book(never);
    await sender!.close();
    sender = undefined;
    // Down across both 60-minute reminders; back 30 minutes before the first meeting, after the second one started.
    api.clock.set(at(late, -30));
    // Only the 1440s were due before; they were not sent either (the sender was down): the 1440 of `late` still goes.
    const back = await startSender();
    sender = back;
    await eventually(
      async () => (reminderEventsOf(lateId).length === 2 ? true : undefined),
      10_000,
      'the late 1440 and 60 reminders of the first booking',
    );
    expect(
      reminderEventsOf(lateId)
        .map((r) => r.payload.data.reminder.minutesBefore)
        .sort(),
    ).toEqual([1440, 60]);
    await sender.close();
    sender = undefined;
    api.clock.set(at(never, 1));
    sender = await startSender();
    await pause(QUIET_MS);
    expect(reminderEventsOf(neverId)).toEqual([]);
    expect(reminderMailsOf(neverId)).toEqual([]);
    expect(await remindersOf(neverId)).toEqual([
      { minutesBefore: 1440, dueAt: at(never, -1440), sentAt: null },
      { minutesBefore: 60, dueAt: at(never, -60), sentAt: null },
      { minutesBefore: 5, dueAt: at(never, -5), sentAt: null },
    ]);
    // The first one's 5-minute reminder fell due after its start too: never.
    expect(reminderEventsOf(lateId)).toHaveLength(2);
  });

  it('follows the event type’s list: a reminder added after booking is sent, a removed one is not', async () => {
    const eventType = (
      await api.http.post(
        '/v1/event-types',
        { title: 'Changing', slug: 'changing', durationMinutes: 30, reminders: [{ minutesBefore: 60, recipients: ['attendee'] }] },
        { apiKey: org.apiKey },
      )
    ).body.eventType;
    expect(eventType.reminders).toEqual([{ minutesBefore: 60, recipients: ['attendee'] }]);
    api.clock.set(NOW);
    const startsAt = nextStart();
    const id = await book(startsAt, {}, org.apiKey, eventType.id);
    const patched = await api.http.patch(
      `/v1/event-types/${eventType.id}`,
      { reminders: [{ minutesBefore: 120, recipients: ['attendee'] }] },
      { apiKey: org.apiKey },
    );
    expect(patched.status).toBe(200);
    expect(patched.body.eventType.reminders).toEqual([{ minutesBefore: 120, recipients: ['attendee'] }]);
    expect(await remindersOf(id)).toEqual([{ minutesBefore: 120, dueAt: at(startsAt, -120), sentAt: null }]);
    // The same times with other recipients: the rows stay; the recipients in force when it goes are the ones used.
    const recipientsOnly = await api.http.patch(
      `/v1/event-types/${eventType.id}`,
      { reminders: [{ minutesBefore: 120, recipients: ['attendee', 'host'] }] },
      { apiKey: org.apiKey },
    );
    expect(recipientsOnly.status).toBe(200);
    expect(await remindersOf(id)).toEqual([{ minutesBefore: 120, dueAt: at(startsAt, -120), sentAt: null }]);

    api.clock.set(at(startsAt, -120));
    await eventually(async () => (reminderMailsOf(id).length === 2 ? true : undefined), 10_000, 'the added reminder’s mails');
    api.clock.set(at(startsAt, -60));
    await pause(QUIET_MS);
    expect(reminderEventsOf(id).map((r) => r.payload.data.reminder)).toEqual([{ minutesBefore: 120 }]);
    expect(reminderMailsOf(id)).toHaveLength(2);
  });

  it('keeps every booking’s reminders on the final list when the list changes while bookings are made on two instances', async () => {
    const eventType = (
      await api.http.post(
        '/v1/event-types',
        { title: 'Racing', slug: 'racing', durationMinutes: 30, reminders: [{ minutesBefore: 60, recipients: ['attendee'] }] },
        { apiKey: org.apiKey },
      )
    ).body.eventType;
    api.clock.set(NOW);
    const second = await startTestApp({ databaseUrl: api.databaseUrl, clock: api.clock, env: { RUN_WORKERS: 'false' } });
    try {
      const base = nextStart();
      const starts = Array.from({ length: 12 }, (_, i) => at(base, i * 30 - 180));
      // 503 is the contract's "retry" (a wait past DB_STATEMENT_TIMEOUT_MS when other test files load the machine):
      // a client retries, a booking with its Idempotency-Key.
      const retried = async (send: () => Promise<{ status: number; body: any }>): Promise<{ status: number; body: any }> => {
        for (let attempt = 1; ; attempt++) {
          const res = await send();
          if (res.status !== 503 || attempt === 3) return res;
        }
      };
      const results = await Promise.all([
        ...starts.map((startsAt, i) =>
          retried(() =>
            (i % 2 ? second : api).http.post('/v1/bookings', bookingBody(eventType.id, startsAt), {
              apiKey: org.apiKey,
              headers: { 'idempotency-key': `race-${startsAt}` },
            }),
          ),
        ),
        ...[[120], [120, 15], [15]].map((list, i) =>
          pause(20 * i).then(() =>
            retried(() =>
              api.http.patch(
                `/v1/event-types/${eventType.id}`,
                { reminders: list.map((minutesBefore) => ({ minutesBefore, recipients: ['attendee'] })) },
                { apiKey: org.apiKey },
              ),
            ),
          ),
        ),
      ]);
      expect(results.map((r) => r.status).sort()).toEqual([...starts.map(() => 201), 200, 200, 200].sort());
      const final = (await api.http.get(`/v1/event-types/${eventType.id}`, { apiKey: org.apiKey })).body.eventType.reminders;
      const minutes = final.map((r: { minutesBefore: number }) => r.minutesBefore);
      for (const res of results.slice(0, starts.length)) {
        const { id, startsAt } = res.body.booking;
        expect({ id, reminders: (await remindersOf(id)).map((r: { minutesBefore: number }) => r.minutesBefore) }).toEqual({
          id,
          reminders: minutes.filter((m: number) => Date.parse(at(startsAt, -m)) > Date.parse(NOW)),
        });
      }
    } finally {
      await second.close();
    }
  });

  it('sends nothing for a cancelled booking; a reschedule counts from its new start', async () => {
    api.clock.set(NOW);
    const cancelledId = await book(nextStart());
    const movedStart = nextStart();
    const original = await api.http.post('/v1/bookings', bookingBody(org.eventTypeId, movedStart), { apiKey: org.apiKey });
    const newStart = at(movedStart, 60);
    const moved = await api.http.post(
      `/v1/bookings/${original.body.booking.id}/reschedule`,
      { newStartTime: newStart, token: original.body.booking.confirmationToken },
      {},
    );
    expect(moved.status).toBe(200);
    expect((await api.http.post(`/v1/bookings/${cancelledId}/cancel`, {}, { apiKey: org.apiKey })).status).toBe(200);
    expect(await remindersOf(cancelledId)).toEqual([]);
    expect(await remindersOf(original.body.booking.id)).toEqual([]);
    const newId = moved.body.booking.id as string;
    expect((await remindersOf(newId)).map((r: { dueAt: string }) => r.dueAt)).toEqual([
      at(newStart, -1440),
      at(newStart, -60),
      at(newStart, -5),
    ]);

    api.clock.set(at(movedStart, -60)); // the original's 60-minute time: nothing
    await pause(QUIET_MS);
    expect(reminderEventsOf(original.body.booking.id)).toEqual([]);
    expect(reminderEventsOf(cancelledId)).toEqual([]);
    api.clock.set(at(newStart, -60));
    await eventually(async () => (reminderEventsOf(newId).length === 2 ? true : undefined), 10_000, 'the new booking’s 1440 and 60');
  });

  it('gives every occurrence of a series its own reminders; cancelling “following” removes theirs, the earlier keep theirs', async () => {
    const eventType = (
      await api.http.post(
        '/v1/event-types',
        {
          title: 'Weekly',
          slug: 'weekly',
          durationMinutes: 30,
          recurrence: { frequency: 'weekly', interval: 1, maxCount: 4 },
          reminders: [{ minutesBefore: 60, recipients: ['attendee'] }],
        },
        { apiKey: org.apiKey },
      )
    ).body.eventType;
    api.clock.set(NOW);
    const first = nextStart();
    const made = await api.http.post('/v1/bookings', bookingBody(eventType.id, first, { recurrenceCount: 3 }), { apiKey: org.apiKey });
    expect(made.status).toBe(201);
    const occurrences = made.body.series.bookings as { id: string; startsAt: string }[];
    for (const occurrence of occurrences) {
      expect(await remindersOf(occurrence.id)).toEqual([{ minutesBefore: 60, dueAt: at(occurrence.startsAt, -60), sentAt: null }]);
    }
    const cancelled = await api.http.post(
      `/v1/bookings/${occurrences[1].id}/cancel`,
      { scope: 'following', token: made.body.booking.confirmationToken },
      {},
    );
    expect(cancelled.body.cancelledBookingIds).toEqual([occurrences[1].id, occurrences[2].id]);
    expect((await remindersOf(occurrences[0].id)).map((r: { minutesBefore: number }) => r.minutesBefore)).toEqual([60]);
    expect(await remindersOf(occurrences[1].id)).toEqual([]);
    expect(await remindersOf(occurrences[2].id)).toEqual([]);
  });

  it('gives a pending booking reminders once confirmed, only those still ahead; a declined one none', async () => {
    const eventType = (
      await api.http.post(
        '/v1/event-types',
        {
          title: 'Approved',
          slug: 'approved',
          durationMinutes: 30,
          requiresConfirmation: true,
          reminders: [
            { minutesBefore: 1440, recipients: ['attendee'] },
            { minutesBefore: 60, recipients: ['attendee'] },
          ],
        },
        { apiKey: org.apiKey },
      )
    ).body.eventType;
    api.clock.set(NOW);
    const startsAt = nextStart();
    const pendingId = await book(startsAt, {}, org.apiKey, eventType.id);
    const declinedId = await book(at(startsAt, 60), {}, org.apiKey, eventType.id);
    expect(await remindersOf(pendingId)).toEqual([]);
    // Confirmed after the 1440 time has passed: only the 60 applies.
    api.clock.set(at(startsAt, -600));
    expect((await api.http.post(`/v1/bookings/${pendingId}/confirm`, {}, { apiKey: org.apiKey })).status).toBe(200);
    expect((await api.http.post(`/v1/bookings/${declinedId}/decline`, {}, { apiKey: org.apiKey })).status).toBe(200);
    expect(await remindersOf(pendingId)).toEqual([{ minutesBefore: 60, dueAt: at(startsAt, -60), sentAt: null }]);
    expect(await remindersOf(declinedId)).toEqual([]);
    api.clock.set(at(startsAt, -60));
    await eventually(async () => (reminderEventsOf(pendingId).length === 1 ? true : undefined), 10_000, 'the 60-minute reminder');
    api.clock.set(at(startsAt, 30));
    await pause(QUIET_MS);
    expect(reminderEventsOf(pendingId)).toHaveLength(1);
    expect(reminderEventsOf(declinedId)).toEqual([]);
  });

  it('in test mode sends the webhook event and no mail', async () => {
    api.clock.set(NOW);
    const startsAt = nextStart();
    const id = await book(startsAt, {}, org.testKey);
    api.clock.set(at(startsAt, -1440));
    const event = await eventually(async () => reminderEventsOf(id, '/sandbox')[0], 10_000, 'the test-mode event');
    expect(event.payload.data).toMatchObject({ booking: { id, livemode: false }, reminder: { minutesBefore: 1440 } });
    await pause(QUIET_MS);
    expect(reminderMailsOf(id)).toEqual([]);
    expect(reminderEventsOf(id, '/live')).toEqual([]);
    expect((await remindersOf(id, org.testKey))[0].sentAt).toBe(at(startsAt, -1440));
  });

  it('sends each reminder exactly once with two senders: 200 seats due in the same minute', async () => {
    const eventType = (
      await api.http.post(
        '/v1/event-types',
        {
          title: 'Class',
          slug: 'class',
          durationMinutes: 30,
          seatsPerSlot: 200,
          reminders: [{ minutesBefore: 30, recipients: ['attendee', 'host'] }],
        },
        { apiKey: org.apiKey },
      )
    ).body.eventType;
    api.clock.set(NOW);
    const startsAt = nextStart();
    const ids: string[] = [];
    for (let i = 0; i < 200; i += 20) {
      const made = await Promise.all(
        Array.from({ length: 20 }, (_, j) => book(startsAt, { attendee: { email: `seat${i + j}@example.com` } }, org.apiKey, eventType.id)),
      );
      ids.push(...made);
    }
    const second = await startSender();
    try {
      api.clock.set(at(startsAt, -30));
      await eventually(
        async () => (ids.every((id) => reminderEventsOf(id).length > 0) ? true : undefined),
        60_000,
        'an event for every seat',
      );
      await eventually(async () => (ids.every((id) => reminderMailsOf(id).length === 2) ? true : undefined), 60_000, 'two mails per seat');
      await pause(QUIET_MS);
    } finally {
      await second.close();
    }
    const events = ids.flatMap((id) => reminderEventsOf(id));
    expect(events).toHaveLength(200);
    expect(new Set(events.map((r) => r.webhookId)).size).toBe(200);
    expect(ids.flatMap((id) => reminderMailsOf(id))).toHaveLength(400);
    const recorded = await api.app
      .get(DataSource)
      .query(`SELECT count(*)::int AS n FROM domain_events WHERE type = 'booking.reminder' AND data->'booking'->>'id' = ANY($1)`, [ids]);
    expect(recorded).toEqual([{ n: 200 }]);
  }, 120_000);

  it('refuses bad reminder lists with 400 naming the field, never a 500', async () => {
    const cases: [unknown, string][] = [
      [[{ minutesBefore: 0, recipients: ['attendee'] }], 'reminders'],
      [[{ minutesBefore: 43201, recipients: ['attendee'] }], 'reminders'],
      [[{ minutesBefore: 1.5, recipients: ['attendee'] }], 'reminders'],
      [[{ minutesBefore: '60', recipients: ['attendee'] }], 'reminders'],
      [
        [
          { minutesBefore: 60, recipients: ['attendee'] },
          { minutesBefore: 60, recipients: ['host'] },
        ],
        'reminders[1].minutesBefore',
      ],
      [[{ minutesBefore: 60, recipients: [] }], 'reminders'],
      [[{ minutesBefore: 60, recipients: ['guest'] }], 'reminders'],
      [[{ minutesBefore: 60, recipients: ['host', 'host'] }], 'reminders'],
      [[{ minutesBefore: 60 }], 'reminders'],
      [Array.from({ length: 6 }, (_, i) => ({ minutesBefore: i + 1, recipients: ['attendee'] })), 'reminders'],
      [null, 'reminders'],
      ['soon', 'reminders'],
      [[null], 'reminders'],
    ];
    for (const [reminders, field] of cases) {
      const res = await api.http.patch(`/v1/event-types/${org.eventTypeId}`, { reminders }, { apiKey: org.apiKey });
      expect({ reminders, status: res.status, code: res.body.code }).toEqual({ reminders, status: 400, code: 'VALIDATION_ERROR' });
      expect(res.body.details.map((d: { field: string }) => d.field).some((f: string) => f.startsWith(field))).toBe(true);
    }
    // The limits themselves are fine; recipients come back in their canonical order, the list earliest first.
    const ok = await api.http.patch(
      `/v1/event-types/${org.eventTypeId}`,
      {
        reminders: [
          { minutesBefore: 1, recipients: ['host', 'attendee'] },
          { minutesBefore: 43200, recipients: ['host'] },
        ],
      },
      { apiKey: org.apiKey },
    );
    expect(ok.status).toBe(200);
    expect(ok.body.eventType.reminders).toEqual([
      { minutesBefore: 43200, recipients: ['host'] },
      { minutesBefore: 1, recipients: ['attendee', 'host'] },
    ]);
  });
});
