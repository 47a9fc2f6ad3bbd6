/**
 * Reminders (issue 26).
 *
 * 1. Burst: 10,000 reminders due in the same second (attendee + host mail each, one booking.reminder event each to one
 *    webhook endpoint), the sender, mail worker and webhook delivery running in one API instance, then in two. Lag =
 *    arrival at the sink (a process of its own: an HTTP receiver that verifies signatures and an SMTP server) − dueAt,
 *    for every mail and every event; the rate from dueAt to the last arrival. Goal: p99 ≤ 60 s on one instance.
 * 0. Render: what rendering one reminder mail costs (subject, text, HTML and `.ics`, in the reader's language and zone,
 *    issue 52), in process: BENCH_MAIL_RENDERS reminders of an attendee and a host, µs per mail.
 * 2. Idle lookup: 1,000,000 future bookings with their due rows, nothing due. What one idle round of the sender costs
 *    (it reads the next due time and sleeps until then; the claim runs only when something is due), times the rounds it
 *    makes per minute of clock (60 s / the poll interval, at most). Goal: ≤ 1 ms per minute. Baseline: a primary-key
 *    lookup on the same pool.
 *
 *   npm run bench:build && node dist-bench/bench/reminders.bench.js
 */
import { fork } from 'node:child_process';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DataSource } from 'typeorm';
import { type BookingMailFacts, reminderMails } from '../apps/api/src/modules/booking-effects/booking-mail.js';
import { ReminderQueueRepository } from '../apps/api/src/modules/booking-reminders/reminder-queue.repository.js';
import { REMINDER_LEASE_SECONDS } from '../apps/api/src/modules/booking-reminders/reminder-sender.worker.js';
import { reportGoal } from './support/goals.js';
import { machine, row, startBenchApp, startInstance } from './support/harness.js';
import type { ReminderSinkReport } from './support/reminder-sink.js';

const REMINDERS = Number(process.env.BENCH_REMINDERS ?? 10_000);
const FUTURE_BOOKINGS = Number(process.env.BENCH_FUTURE_BOOKINGS ?? 1_000_000);
const FILL_CHUNK = 25_000;
const POLL_MS = 60_000; // REMINDERS_POLL_MS's default
const LEAD_MS = 5_000;
const MAIL_RENDERS = Number(process.env.BENCH_MAIL_RENDERS ?? 20_000);

/**
 * µs per reminder mail rendered (the attendee's and a host's of each booking, each with its `.ics`): an attendee in
 * de-AT in Berlin, a host of an organization whose default is en, in Tokyo, with two answers.
 */
function renderCost(): number {
  const facts = (i: number): BookingMailFacts => ({
    bookingId: `bkg_${String(i).padStart(24, '0')}`,
    title: 'Bench',
    startsAt: new Date(Date.UTC(2027, 2, 2, 10, 0) + i * 1_800_000),
    endsAt: new Date(Date.UTC(2027, 2, 2, 10, 30) + i * 1_800_000),
    timezone: 'Europe/Berlin',
    attendeeLocale: 'de-AT',
    organizationLocale: 'en',
    location: 'https://meet.example/bench',
    answers: [
      { id: 'company', label: 'Company', type: 'text', value: 'Acme' },
      { id: 'consent', label: 'Consent', type: 'checkbox', value: true },
    ],
    attendee: { email: `attendee${i}@example.com`, name: 'Ann Attendee' },
    hosts: [{ email: 'host@example.com', name: 'Hal Host', locale: null, zone: 'Asia/Tokyo', defaultLocale: 'en' }],
    status: 'confirmed',
    appUrl: 'http://localhost:3000',
    minutesBefore: 60,
  });
  for (let i = 0; i < 500; i++) reminderMails(facts(i), ['attendee', 'host']);
  const started = process.hrtime.bigint();
  for (let i = 0; i < MAIL_RENDERS; i++) reminderMails(facts(i), ['attendee', 'host']);
  return Number(process.hrtime.bigint() - started) / 1e3 / (MAIL_RENDERS * 2);
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function json<T>(response: Response): Promise<T> {
  return (await response.json()) as T;
}

async function main(): Promise<void> {
  const sink = fork(fileURLToPath(new URL('./support/reminder-sink.js', import.meta.url)));
  const { port, smtpPort } = await new Promise<{ port: number; smtpPort: number }>((resolve) =>
    sink.once('message', (m: { port: number; smtpPort: number }) => resolve(m)),
  );
  const report = (): Promise<ReminderSinkReport> =>
    new Promise((resolve) => {
      sink.once('message', (m: { report: ReminderSinkReport }) => resolve(m.report));
      sink.send({ report: true });
    });

  // This instance takes the setup requests and sends nothing; the senders are started per phase.
  const bench = await startBenchApp([], { RUN_WORKERS: 'false' });
  const db = bench.app.get(DataSource);
  const senderEnv = { SMTP_URL: `smtp://127.0.0.1:${smtpPort}` };
  try {
    const owner = await json<{ accessToken: string; user: { id: string }; organization: { id: string } }>(
      await fetch(`${bench.url}/v1/auth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'bench@example.com', password: 'bench password', organizationName: 'Bench' }),
      }),
    );
    const auth = { 'content-type': 'application/json', authorization: `Bearer ${owner.accessToken}` };
    const eventType = await json<{ eventType: { id: string } }>(
      await fetch(`${bench.url}/v1/event-types`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({
          title: 'Bench',
          slug: 'bench',
          durationMinutes: 30,
          reminders: [{ minutesBefore: 60, recipients: ['attendee', 'host'] }],
        }),
      }),
    );
    const hook = await json<{ secret: string }>(
      await fetch(`${bench.url}/v1/webhooks`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ url: `http://127.0.0.1:${port}/hook`, events: ['booking.reminder'] }),
      }),
    );
    sink.send({ secret: hook.secret });
    const ids = [owner.organization.id, eventType.eventType.id, owner.user.id];

    /** `count` bookings of the host, from `fromDays` days ahead half an hour apart, with their host rows and due rows. */
    const insertBookings = async (
      prefix: string,
      count: number,
      fromDays: number,
      dueAt: string | null,
      hostRows: boolean,
    ): Promise<void> => {
      const hosts = hostRows
        ? `, h AS (INSERT INTO booking_hosts (booking_id, host_user_id, organization_id, event_type_id, livemode, status, during, created_at)
                   SELECT id, $3, $1, $2, true, 'confirmed', tstzrange(starts_at, ends_at, '[)'), now() FROM b)`
        : '';
      await db.query(
        `WITH b AS (
           INSERT INTO bookings (id, organization_id, event_type_id, livemode, status, starts_at, ends_at, host_user_id, attendee_email,
                                 timezone, confirmation_token_hash, created_at, updated_at)
           SELECT 'bkg_${prefix}' || lpad(i::text, 18, '0'), $1, $2, true, 'confirmed',
                  now() + make_interval(days => $5::integer, mins => 30 * i), now() + make_interval(days => $5::integer, mins => 30 * i + 30),
                  $3, 'attendee' || i || '@example.com', 'Europe/Berlin', md5(i::text), now(), now()
             FROM generate_series(1, $4::integer) AS i
           RETURNING id, starts_at, ends_at
         )${hosts}
         INSERT INTO booking_reminders (organization_id, booking_id, minutes_before, due_at)
         SELECT $1, id, 60, coalesce($6::timestamptz, starts_at - interval '60 minutes') FROM b`,
        [...ids, count, fromDays, dueAt],
      );
    };

    console.log(`${machine()}; load average ${os.loadavg()[0].toFixed(1)}; ${new Date().toISOString().slice(0, 10)}\n`);
    const renders = [renderCost(), renderCost(), renderCost()].sort((a, b) => a - b);
    console.log(`Render: ${MAIL_RENDERS * 2} reminder mails with their .ics, ${renders[1].toFixed(1)} µs per mail (median of 3 runs)\n`);
    console.log(`Burst: ${REMINDERS} reminders due in the same second, each an attendee mail, a host mail and one event\n`);
    console.log(row(['Senders', 'Mail lag p50 / p99 (s)', 'Event lag p50 / p99 (s)', 'Mails/s', 'Events/s', 'Arrived', 'Duplicates']));
    console.log(row(['---', '---:', '---:', '---:', '---:', '---:', '---:']));
    const burstP99: Record<number, number> = {};
    for (const [phase, instances] of [
      ['a', 1],
      ['b', 2],
    ] as const) {
      sink.send({ reset: true });
      const due = Date.now() + LEAD_MS;
      await insertBookings(`rem${phase}`, REMINDERS, phase === 'a' ? 1 : 400, new Date(due).toISOString(), true);
      const senders: NestFastifyApplication[] = [];
      for (let i = 0; i < instances; i++) senders.push((await startInstance(bench.databaseUrl, [], senderEnv)).app);
      const deadline = Date.now() + 600_000;
      let got = await report();
      while ((got.mails.length < REMINDERS * 2 || got.events.length < REMINDERS) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        got = await report();
      }
      for (const sender of senders) await sender.close();
      const mailLags = got.mails.map((at) => at - due).sort((a, b) => a - b);
      const eventLags = got.events.map((at) => at - due).sort((a, b) => a - b);
      const last = Math.max(...got.mails, ...got.events) - due;
      burstP99[instances] = Math.max(percentile(mailLags, 99), percentile(eventLags, 99)) / 1000;
      console.log(
        row([
          instances,
          `${(percentile(mailLags, 50) / 1000).toFixed(1)} / ${(percentile(mailLags, 99) / 1000).toFixed(1)}`,
          `${(percentile(eventLags, 50) / 1000).toFixed(1)} / ${(percentile(eventLags, 99) / 1000).toFixed(1)}`,
          ((got.mails.length * 1000) / last).toFixed(0),
          ((got.events.length * 1000) / last).toFixed(0),
          `${got.mails.length} mails, ${got.events.length} events`,
          got.duplicates,
        ]),
      );
      // The next phase's rows must not mix with these: all sent.
      await db.query(`DELETE FROM bookings WHERE id LIKE $1`, [`bkg_rem${phase}%`]);
    }

    // Idle lookup over a million future bookings, none due.
    const started = Date.now();
    // 25,000 rows a statement: each due row also writes its queue id (a random uuid) into a unique index, and a bigger
    // statement runs into the 5 s statement timeout on a loaded machine.
    for (let i = 0; i < FUTURE_BOOKINGS; i += FILL_CHUNK) {
      await insertBookings(
        `fut${String(i / FILL_CHUNK).padStart(3, '0')}`,
        Math.min(FILL_CHUNK, FUTURE_BOOKINGS - i),
        2 + Math.floor(i / 48),
        null,
        false,
      );
    }
    await db.query('ANALYZE bookings; ANALYZE booking_reminders');
    const filled = (Date.now() - started) / 1000;
    const queue = bench.app.get(ReminderQueueRepository);
    const now = new Date();
    // What the sender does when nothing is due: read the next due time (the claim runs only once one is due).
    const idleRound = async (): Promise<void> => {
      await queue.msUntilNextDue(now);
    };
    const claimRound = (): Promise<unknown> => queue.claimDue(now, 100, REMINDER_LEASE_SECONDS);
    const baseline = (): Promise<unknown> => db.query('SELECT id, name FROM organizations WHERE id = $1', [owner.organization.id]);
    const time = async (work: () => Promise<unknown>, n: number): Promise<number> => {
      for (let i = 0; i < 50; i++) await work();
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < n; i++) await work();
      return Number(process.hrtime.bigint() - t0) / 1e6 / n;
    };
    const roundMs = await time(idleRound, 1000);
    const claimMs = await time(claimRound, 1000);
    const baselineMs = await time(baseline, 1000);
    const plan: { 'QUERY PLAN': string }[] = await db.query(
      `EXPLAIN SELECT r.organization_id FROM booking_reminders r JOIN bookings b ON b.id = r.booking_id
        WHERE r.sent_at IS NULL AND NOT r.missed AND r.due_at <= now() AND (r.locked_until IS NULL OR r.locked_until <= now())
        ORDER BY r.due_at LIMIT 100 FOR UPDATE OF r SKIP LOCKED`,
    );
    const perMinute = roundMs * (60_000 / POLL_MS);
    console.log(
      `\nIdle lookup: ${FUTURE_BOOKINGS.toLocaleString('en')} future bookings with due rows (written in ${filled.toFixed(0)} s), none due\n`,
    );
    console.log(row(['', 'ms']));
    console.log(row(['---', '---:']));
    console.log(row(['baseline: primary-key lookup on the same pool', baselineMs.toFixed(3)]));
    console.log(row(['one idle round (the next due time)', roundMs.toFixed(3)]));
    console.log(row(['for comparison: a claim that finds nothing (LeaseQueue, autocommit)', claimMs.toFixed(3)]));
    console.log(row([`per minute of clock (${60_000 / POLL_MS} round at the ${POLL_MS / 1000} s poll)`, perMinute.toFixed(3)]));
    console.log(`\nThe claim's plan: ${plan.map((p) => p['QUERY PLAN'].trim()).join(' / ')}\n`);

    reportGoal({
      bench: 'reminders',
      goal: `Burst of ${REMINDERS} reminders on one instance: p99 lag ≤ 60 s`,
      result: `${burstP99[1].toFixed(1)} s (two instances ${burstP99[2].toFixed(1)} s)`,
      met: burstP99[1] <= 60,
    });
    reportGoal({
      bench: 'reminders',
      goal: 'Due-reminder lookup with nothing due: ≤ 1 ms per minute of clock (1,000,000 future bookings)',
      result: `${perMinute.toFixed(3)} ms (baseline lookup ${baselineMs.toFixed(3)} ms)`,
      met: perMinute <= 1,
    });
  } finally {
    await bench.close();
    sink.kill();
  }
}

await main();
