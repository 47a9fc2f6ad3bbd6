import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import pg from 'pg';
import { loadConfig, SystemClock } from '@app/common';
import { runMigrations } from '@app/database';
import { createApp } from '../../apps/api/src/bootstrap.js';
import { call, sleep, type Outcome } from './outage.js';
import { PatroniCluster } from './patroni.js';
import { SmtpTestServer } from './smtp.js';
import { WebhookReceiver } from './webhooks.js';

/*
 * The failover drill (issue 36, contract § 19 "High availability"): a Patroni cluster from deploy/ha/, two API
 * instances and a worker process against HAProxy, booking load from two clients, the primary's postmaster killed with
 * SIGKILL, the old primary rejoining, a switchover back, all under load. `npm run drill:failover` runs it at full length,
 * test/failover.e2e-spec.ts a short one; both fail when a promise fails.
 */

export const DRILL_JWT_SECRET = 'drill-secret-that-is-at-least-32-characters-long';
export const DRILL_ENCRYPTION_KEY = Buffer.alloc(32, 3).toString('base64');
const CONNECT_TIMEOUT_MS = 1000;
const STATEMENT_TIMEOUT_MS = 2000;
/** A request never takes longer than waiting for a connection plus the statement timeout (contract § 19). */
export const REQUEST_LIMIT_MS = CONNECT_TIMEOUT_MS + STATEMENT_TIMEOUT_MS;
const RECOVERY_GOAL_MS = 5000;
const REMINDER_MINUTES = [5, 10, 15, 20];

export interface DrillOptions {
  /** The worker process's command (compiled apps/worker/src/main.js under node). */
  worker: { command: string; args: string[] };
  /** Load before the kill, between promotion and switchover, and after it (ms). */
  warmMs: number;
  midMs: number;
  tailMs: number;
  /** Milliseconds between two operations of one client. */
  intervalMs: number;
  log?: (line: string) => void;
}

export interface DrillReport {
  table: string;
  failures: string[];
  figures: Record<string, number | string>;
}

interface Request extends Outcome {
  at: number;
  startedAt: number;
  instance: number;
  write: boolean;
  kind: string;
}

interface Instance {
  app: NestFastifyApplication;
  url: string;
}

interface Acknowledged {
  kind: 'plain' | 'seat' | 'series' | 'hold' | 'reminder';
  key: string;
  email: string;
  bookingIds: string[];
}

/** The environment every process of the service gets: one JWT secret and encryption key, fast database timeouts. */
function serviceEnv(databaseUrl: string, smtpUrl: string): Record<string, string> {
  return {
    NODE_ENV: 'test',
    DATABASE_URL: databaseUrl,
    JWT_SECRET: DRILL_JWT_SECRET,
    ENCRYPTION_KEY: DRILL_ENCRYPTION_KEY,
    SMTP_URL: smtpUrl,
    DB_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS),
    DB_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
    WEBHOOK_RETRY_SCHEDULE: '1,1,1,1,1,1,1,1,1,1',
    MAIL_RETRY_SCHEDULE: '1,1,1,1,1,1,1,1,1,1',
    WEBHOOK_TIMEOUT_MS: '2000',
    REMINDERS_POLL_MS: '1000',
    RATE_LIMIT_USER_PER_MINUTE: '1000000',
    RATE_LIMIT_PUBLIC_PER_MINUTE: '1000000',
    PUBLIC_BOOKINGS_PER_VISITOR_PER_HOUR: '1000000',
  };
}

async function startInstance(env: Record<string, string>, scratch: string): Promise<Instance> {
  const config = loadConfig({
    ...env,
    PORT: '0',
    DATA_DIR: mkdtempSync(join(scratch, 'api-')),
    LOG_LEVEL: 'silent',
    RUN_WORKERS: 'false',
  });
  const app = await createApp({ config, clock: new SystemClock() });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { app, url: `http://127.0.0.1:${port}` };
}

function startWorker(options: DrillOptions, env: Record<string, string>, scratch: string): { child: ChildProcess; output: () => string } {
  const childEnv: NodeJS.ProcessEnv = {
    ...process.env,
    ...env,
    LOG_LEVEL: 'warn',
    DATA_DIR: mkdtempSync(join(scratch, 'worker-')),
    // Its /metrics on any free port: the default 9464 may be another worker's on this machine.
    METRICS_PORT: '0',
  };
  for (const key of Object.keys(childEnv)) if (key.startsWith('JEST') || key === 'NODE_OPTIONS') delete childEnv[key];
  const child = spawn(options.worker.command, options.worker.args, { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-50_000)));
  child.stderr?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-50_000)));
  return { child, output: () => output };
}

async function post(url: string, path: string, body: unknown, headers: Record<string, string>): Promise<Outcome> {
  return call(`${url}${path}`, { method: 'POST', headers, body, timeoutMs: 15_000 });
}

function mustCreate(outcome: Outcome, what: string): any {
  if (outcome.status !== 201 && outcome.status !== 200) throw new Error(`${what}: ${outcome.status} ${JSON.stringify(outcome.body)}`);
  return outcome.body;
}

const MINUTE = 60_000;

export async function runFailoverDrill(options: DrillOptions): Promise<DrillReport> {
  const log = options.log ?? (() => undefined);
  const started = Date.now();
  const cluster = await PatroniCluster.start();
  const smtp = await SmtpTestServer.start();
  const receiver = await WebhookReceiver.start();
  const instances: Instance[] = [];
  const scratch = mkdtempSync(join(tmpdir(), 'sched-drill-'));
  let worker: ReturnType<typeof startWorker> | undefined;
  const admin = new pg.Client({ connectionString: cluster.url('postgres') });
  try {
    log(`cluster up in ${Date.now() - started} ms: ${JSON.stringify(await cluster.members())}`);
    await admin.connect();
    await admin.query('CREATE DATABASE scheduling');
    await admin.end();
    const databaseUrl = cluster.url('scheduling');
    await runMigrations(databaseUrl);
    const env = serviceEnv(databaseUrl, smtp.url);
    instances.push(await startInstance(env, scratch), await startInstance(env, scratch));
    worker = startWorker(options, env, scratch);
    const [a] = instances;

    // The organization: an owner available every day all day, on a grid that puts reminder bookings' due time on the
    // next whole minute `due` (slots start at the window's start plus multiples of 5 minutes).
    const due = Math.ceil((Date.now() + 4000) / MINUTE) * MINUTE;
    const offset = new Date(due).getUTCMinutes() % 5;
    const registered = mustCreate(
      await post(
        a.url,
        '/v1/auth/register',
        { email: `drill-${Date.now()}@example.com`, password: 'drill password 1', organizationName: 'Drill' },
        {},
      ),
      'register',
    );
    const token = { authorization: `Bearer ${registered.accessToken}` };
    const window = offset === 0 ? { startTime: '00:00', endTime: '24:00' } : { startTime: `00:0${offset}`, endTime: `23:5${offset}` };
    // A day's window ends before its last 5-minute start (23:5x): the reminders' starts (up to 25 minutes after `due`)
    // must not reach the hosts' midnight, so near midnight UTC the hosts work in a zone whose midnight is hours away
    // (India's, +05:30: the same 5-minute grid).
    const dueHour = new Date(due).getUTCHours();
    const hostZone = dueHour >= 4 && dueHour < 20 ? 'UTC' : 'Asia/Kolkata';
    const schedule = await call(`${a.url}/v1/availability/schedules`, {
      method: 'PUT',
      headers: token,
      body: { timezone: hostZone, schedules: [0, 1, 2, 3, 4, 5, 6].map((dayOfWeek) => ({ dayOfWeek, slots: [window] })) },
    });
    if (schedule.status !== 200) throw new Error(`schedule: ${schedule.status} ${JSON.stringify(schedule.body)}`);
    const apiKey = mustCreate(await post(a.url, '/v1/api-keys', { name: 'drill', rateLimitPerMinute: 10_000 }, token), 'api key')
      .apiKey as string;
    const auth = { authorization: `ApiKey ${apiKey}` };
    let slugs = 0;
    const eventType = async (body: Record<string, unknown>): Promise<string> =>
      mustCreate(
        await post(a.url, '/v1/event-types', { title: 'Drill', slug: `drill-${++slugs}`, durationMinutes: 5, ...body }, token),
        'event type',
      ).eventType.id as string;
    const plainType = await eventType({});
    const seatType = await eventType({ seatsPerSlot: 3 });
    const seriesType = await eventType({ recurrence: { frequency: 'weekly', interval: 1, maxCount: 4 } });
    const reminderTypes = await Promise.all(
      REMINDER_MINUTES.map((minutesBefore) => eventType({ reminders: [{ minutesBefore, recipients: ['attendee'] }] })),
    );
    const hook = mustCreate(
      await post(a.url, '/v1/webhooks', { url: receiver.url('/hook'), events: ['booking.created', 'booking.reminder'] }, auth),
      'webhook',
    );
    receiver.expectSecret('/hook', hook.secret);

    const requests: Request[] = [];
    const acknowledged: Acknowledged[] = [];
    const gaveUp: string[] = [];
    let stop = false;

    /** One write with its Idempotency-Key, retried with the same key on 503 and on 409 IDEMPOTENCY_KEY_IN_USE. */
    const write = async (client: number, kind: string, path: string, body: unknown, key?: string): Promise<Outcome> => {
      const deadline = Date.now() + 60_000;
      for (let attempt = 0; ; attempt++) {
        const instance = (client + attempt) % instances.length;
        const startedAt = Date.now();
        const outcome = await post(instances[instance].url, path, body, { ...auth, ...(key ? { 'idempotency-key': key } : {}) });
        requests.push({ ...outcome, at: Date.now(), startedAt, instance, write: true, kind });
        const retry = outcome.status === 503 || (outcome.status === 409 && outcome.body?.code === 'IDEMPOTENCY_KEY_IN_USE');
        if (!retry || Date.now() > deadline) return outcome;
        await sleep(200);
      }
    };
    // The hosts' local midnight n days on (+05:30 ahead of UTC in India), plus the grid's offset.
    const zoneAhead = hostZone === 'UTC' ? 0 : 330;
    const day = (n: number): number => Math.floor(Date.now() / 86_400_000) * 86_400_000 + n * 86_400_000 + (offset - zoneAhead) * MINUTE;
    const slot = (firstDay: number, n: number): string => new Date(day(firstDay) + n * 5 * MINUTE).toISOString();
    const booked = (kind: Acknowledged['kind'], key: string, email: string, outcome: Outcome): void => {
      if (outcome.status !== 201 && outcome.status !== 200) {
        gaveUp.push(`${kind} ${key}: ${outcome.status} ${outcome.body?.code ?? ''}`);
        return;
      }
      const ids: string[] = outcome.body.series ? outcome.body.series.bookings.map((b: { id: string }) => b.id) : [outcome.body.booking.id];
      acknowledged.push({ kind, key, email, bookingIds: ids });
    };

    // Reminder bookings first: each falls due at `due`, during the drill.
    await Promise.all(
      REMINDER_MINUTES.map(async (minutesBefore, i) => {
        const key = `reminder-${i}`;
        const email = `reminder-${i}@example.com`;
        const startTime = new Date(due + minutesBefore * MINUTE).toISOString();
        booked(
          'reminder',
          key,
          email,
          await write(
            i,
            'reminder',
            '/v1/bookings',
            { eventTypeId: reminderTypes[i], startTime, timezone: 'UTC', attendee: { email, firstName: 'Rem' } },
            key,
          ),
        );
      }),
    );
    log(`reminders due at ${new Date(due).toISOString()}`);

    // Two clients, each one operation every intervalMs, rotating plain, seat, series and hold-then-book.
    const client = async (id: number): Promise<void> => {
      for (let n = 0; !stop; n++) {
        const next = Date.now() + options.intervalMs;
        const op = n % 4;
        const seq = Math.floor(n / 4) * 2 + id;
        const key = `c${id}-${n}`;
        const email = `${key}@example.com`;
        if (op === 0) {
          booked(
            'plain',
            key,
            email,
            await write(
              id,
              'plain',
              '/v1/bookings',
              { eventTypeId: plainType, startTime: slot(2, seq), timezone: 'UTC', attendee: { email } },
              key,
            ),
          );
        } else if (op === 1) {
          booked(
            'seat',
            key,
            email,
            await write(
              id,
              'seat',
              '/v1/bookings',
              { eventTypeId: seatType, startTime: slot(20, Math.floor(seq / 3)), timezone: 'UTC', attendee: { email } },
              key,
            ),
          );
        } else if (op === 2) {
          booked(
            'series',
            key,
            email,
            await write(
              id,
              'series',
              '/v1/bookings',
              { eventTypeId: seriesType, startTime: slot(8, seq), recurrenceCount: 2, timezone: 'UTC', attendee: { email } },
              key,
            ),
          );
        } else {
          const startTime = slot(4, seq);
          const hold = await write(id, 'hold', '/v1/holds', { eventTypeId: plainType, startTime, timezone: 'UTC' });
          if (hold.status === 201) {
            booked(
              'hold',
              key,
              email,
              await write(
                id,
                'hold-booking',
                '/v1/bookings',
                { eventTypeId: plainType, startTime, timezone: 'UTC', holdId: hold.body.hold.id, attendee: { email } },
                key,
              ),
            );
          }
        }
        await sleep(Math.max(0, next - Date.now()));
      }
    };
    const readiness: { at: number; instance: number; status: number }[] = [];
    const probe = async (): Promise<void> => {
      while (!stop) {
        await Promise.all(
          instances.map(async (instance, i) =>
            readiness.push({
              at: Date.now(),
              instance: i,
              status: (await call(`${instance.url}/health/ready`, { timeoutMs: 10_000 })).status,
            }),
          ),
        );
        // Reads too: a booking page's availability, from each instance.
        const dates = `start=${new Date(day(2)).toISOString().slice(0, 10)}&end=${new Date(day(3)).toISOString().slice(0, 10)}`;
        await Promise.all(
          instances.map(async (instance, i) => {
            const startedAt = Date.now();
            const outcome = await call(`${instance.url}/v1/availability?eventTypeId=${plainType}&${dates}&timezone=UTC`, {
              headers: auth,
              timeoutMs: 15_000,
            });
            requests.push({ ...outcome, at: Date.now(), startedAt, instance: i, write: false, kind: 'availability' });
          }),
        );
        await sleep(250);
      }
    };
    const load = Promise.all([client(0), client(1), probe()]);

    // The drill.
    await sleep(options.warmMs);
    const original = await cluster.primary();
    if (!original) throw new Error('no primary before the kill');
    const standby = cluster.nodes.find((n) => n.name !== original)!.name;
    // With primary_start_timeout 0 Patroni fails over at once "if possible": it first asks the standby's REST API
    // whether it is healthy and in sync. On an overloaded machine that question can time out, and Patroni then
    // restarts the crashed primary where it was (its documented fallback). That is Patroni deciding, not a failover we
    // can measure: the drill kills the restarted primary again, up to three crashes, and names each one.
    let killedAt = 0;
    let firstKilledAt = 0;
    let crashes = 0;
    let promoted = false;
    for (let crash = 1; crash <= 3 && !promoted; crash++) {
      killedAt = Date.now();
      firstKilledAt ||= killedAt;
      crashes = crash;
      cluster.killPostmaster(original);
      log(`killed ${original}'s postmaster (crash ${crash})`);
      const deadline = Date.now() + 60_000;
      for (;;) {
        if (await cluster.isPrimary(standby).catch(() => false)) {
          promoted = true;
          break;
        }
        if (Date.now() - killedAt > 5_000 && (await cluster.isPrimary(original).catch(() => false))) {
          log(`Patroni restarted ${original} as the primary instead of failing over: crashing it again`);
          break;
        }
        if (Date.now() > deadline) break;
        await sleep(100);
      }
    }
    if (!promoted) throw new Error(`${standby} was not promoted after three crashes of ${original}\n${cluster.logs().slice(-8000)}`);
    const promotedAt = Date.now();
    log(`${standby} promoted after ${promotedAt - killedAt} ms`);
    await cluster.waitFor(
      async () => (await cluster.members()).some((m) => m.name === original && m.state === 'running' && m.role === 'sync_standby'),
      90_000,
      `${original} to rejoin as the synchronous standby`,
    );
    const rejoinedAt = Date.now();
    log(`${original} rejoined after ${rejoinedAt - killedAt} ms`);
    await sleep(options.midMs);
    const switchoverAt = Date.now();
    await cluster.switchover(standby, original);
    await cluster.waitFor(() => cluster.isPrimary(original), 60_000, `${original} to lead again`);
    const switchedAt = Date.now();
    log(`switched back to ${original} in ${switchedAt - switchoverAt} ms`);
    await sleep(Math.max(options.tailMs, due + 3000 - Date.now()));
    stop = true;
    await load;
    const loadEnd = Date.now();

    // What was promised, read back once everything had time to go out.
    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    try {
      const expectedMails = (): Map<string, number> => {
        const mails = new Map<string, number>();
        for (const ack of acknowledged) mails.set(`confirm ${ack.email}`, 1);
        for (const ack of acknowledged.filter((x) => x.kind === 'reminder')) mails.set(`reminder ${ack.email}`, 1);
        return mails;
      };
      const seenMails = (): Map<string, number> => {
        const seen = new Map<string, number>();
        const attendees = new Set(acknowledged.map((ack) => ack.email));
        for (const mail of smtp.messages) {
          const reminder = /^Reminder:/.test(mail.parsed.subject ?? '');
          for (const to of mail.envelope.to) {
            if (!attendees.has(to)) continue;
            const name = `${reminder ? 'reminder' : 'confirm'} ${to}`;
            seen.set(name, (seen.get(name) ?? 0) + 1);
          }
        }
        return seen;
      };
      const writtenEvents = async (): Promise<{ id: string; type: string }[]> =>
        (
          await db.query<{ id: string; type: string }>(
            `SELECT id, type FROM domain_events WHERE type IN ('booking.created', 'booking.reminder')`,
          )
        ).rows;
      // Settle: every written event received and every expected mail in, or 45 s.
      const settleDeadline = Date.now() + 45_000;
      for (;;) {
        const events = await writtenEvents();
        const received = new Set(receiver.at('/hook').map((r) => r.webhookId));
        const mails = seenMails();
        const expected = expectedMails();
        const reminders = events.filter((e) => e.type === 'booking.reminder').length;
        if (
          (events.every((e) => received.has(e.id)) &&
            [...expected.keys()].every((k) => mails.has(k)) &&
            reminders >= REMINDER_MINUTES.length) ||
          Date.now() > settleDeadline
        )
          break;
        await sleep(500);
      }
      log(`settled ${Date.now() - settleDeadline + 45_000} ms after the load stopped`);

      const failures: string[] = [];
      if (worker.child.exitCode !== null || worker.child.signalCode !== null) {
        failures.push(`the worker process exited (${worker.child.exitCode ?? worker.child.signalCode}): ${worker.output().slice(-1500)}`);
      }
      const writes = requests.filter((r) => r.write);
      const refused = writes.filter((r) => r.status === 503);
      const window = (list: Request[]): number =>
        list.length ? Math.max(...list.map((r) => r.at)) - Math.min(...list.map((r) => r.startedAt)) : 0;
      const refusedInFailover = refused.filter((r) => r.startedAt < switchoverAt);
      const refusedInSwitchover = refused.filter((r) => r.startedAt >= switchoverAt);
      const unavailableMs = window(refusedInFailover);
      const switchoverUnavailableMs = window(refusedInSwitchover);
      const bad = requests.filter((r) => !(r.status >= 200 && r.status < 300) && r.status !== 409 && r.status !== 503);
      if (bad.length)
        failures.push(
          `requests answered other than 2xx, 409, 503: ${bad
            .slice(0, 5)
            .map((r) => `${r.kind} ${r.status} ${JSON.stringify(r.body)}`)
            .join('; ')}`,
        );
      const slowest = Math.max(...requests.map((r) => r.ms));
      if (slowest > REQUEST_LIMIT_MS) failures.push(`slowest request ${Math.round(slowest)} ms > ${REQUEST_LIMIT_MS} ms`);
      const without = refused.filter((r) => r.body?.code !== 'SERVICE_UNAVAILABLE');
      if (without.length) failures.push(`${without.length} 503s without SERVICE_UNAVAILABLE`);
      const conflicts = writes.filter((r) => r.status === 409 && r.body?.code !== 'IDEMPOTENCY_KEY_IN_USE');
      if (gaveUp.length) failures.push(`operations without an answer: ${gaveUp.slice(0, 5).join('; ')}`);

      const ackIds = acknowledged.flatMap((ack) => ack.bookingIds);
      const found = (await db.query<{ id: string }>(`SELECT id FROM bookings WHERE id = ANY($1) AND status = 'confirmed'`, [ackIds])).rows
        .length;
      if (found !== ackIds.length) failures.push(`acknowledged bookings found ${found} of ${ackIds.length}`);
      const perKey = (
        await db.query<{ email: string; n: number }>(
          `SELECT attendee_email AS email, count(*)::int AS n FROM bookings GROUP BY attendee_email`,
        )
      ).rows;
      const expectedPerEmail = new Map(acknowledged.map((ack) => [ack.email, ack.bookingIds.length]));
      const doubledByKey = perKey.filter((row) => row.n > (expectedPerEmail.get(row.email) ?? 1)).length;
      if (doubledByKey) failures.push(`${doubledByKey} Idempotency-Keys with more than their bookings`);
      const [{ n: doubledByTime }] = (
        await db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM (SELECT host_user_id, starts_at FROM bookings
            WHERE status = 'confirmed' AND event_type_id <> $1 GROUP BY host_user_id, starts_at HAVING count(*) > 1) d`,
          [seatType],
        )
      ).rows;
      const [{ n: overSeated }] = (
        await db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM (SELECT starts_at FROM bookings WHERE status = 'confirmed' AND event_type_id = $1
            GROUP BY starts_at HAVING count(*) > 3) d`,
          [seatType],
        )
      ).rows;
      if (doubledByTime || overSeated) failures.push(`${doubledByTime} host times booked twice, ${overSeated} slots over their seats`);

      const events = await writtenEvents();
      const received = receiver.at('/hook');
      const receivedIds = new Set(received.map((r) => r.webhookId));
      const missingEvents = events.filter((e) => !receivedIds.has(e.id)).length;
      const strangers = [...receivedIds].filter((id) => !events.some((e) => e.id === id)).length;
      const eventsPerBooking = new Map<string, number>();
      for (const r of received.filter((x) => x.payload?.type === 'booking.created')) eventsPerBooking.set(r.payload.data.booking.id, 0);
      const createdEvents = events.filter((e) => e.type === 'booking.created').length;
      if (missingEvents) failures.push(`${missingEvents} events written but never received`);
      if (strangers) failures.push(`${strangers} webhook-ids received that are no written event`);
      if (createdEvents !== ackIds.length)
        failures.push(`booking.created events written ${createdEvents}, acknowledged bookings ${ackIds.length}`);
      if (receiver.unverified().length) failures.push(`${receiver.unverified().length} deliveries failed signature verification`);

      const expected = expectedMails();
      const mails = seenMails();
      const missingMails = [...expected.keys()].filter((k) => !mails.has(k)).length;
      const doubledMails = [...mails.values()].filter((n) => n > 1).length;
      if (missingMails || doubledMails) failures.push(`mails: ${missingMails} missing, ${doubledMails} sent more than once`);
      // Which ones, with their outbox rows, so a failure says whether the mail was never written, is still leased
      // (a claim whose answer the failover lost), waits for a retry, failed, or went out unseen.
      const mailProblems = [
        ...[...expected.keys()].filter((k) => !mails.has(k)).map((k) => ({ problem: 'missing', key: k })),
        ...[...mails.entries()].filter(([, n]) => n > 1).map(([k, n]) => ({ problem: `sent ${n} times`, key: k })),
      ];
      for (const { problem, key } of mailProblems.slice(0, 10)) {
        const [kind, email] = key.split(' ');
        const ack = acknowledged.find((x) => x.email === email);
        const rows = (
          await db.query<Record<string, unknown>>(
            `SELECT id, status, attempts, subject, about, created_at, next_attempt_at, locked_until, sent_at, last_error, now() AS db_now
               FROM mail_outbox WHERE $1 = ANY(recipients) ORDER BY created_at`,
            [email],
          )
        ).rows;
        failures.push(
          `mail ${problem}: ${kind} to ${email} (${ack?.kind ?? '?'} ${ack?.key ?? ''}, bookings ${ack?.bookingIds.join(',') ?? '?'}); ` +
            `mail_outbox: ${rows.length ? JSON.stringify(rows) : 'no row'}`,
        );
      }
      if (mailProblems.length) {
        const workerLines = worker
          .output()
          .split('\n')
          .filter((line) => /mail/i.test(line));
        failures.push(`the worker's mail log lines: ${workerLines.slice(-10).join(' | ') || 'none'}`);
      }
      const reminderRows = (
        await db.query<{ booking: string; n: number }>(
          `SELECT data->'booking'->>'id' AS booking, count(*)::int AS n FROM domain_events WHERE type = 'booking.reminder' GROUP BY 1`,
        )
      ).rows;
      const reminderIds = acknowledged.filter((ack) => ack.kind === 'reminder').flatMap((ack) => ack.bookingIds);
      const remindersOnce = reminderIds.filter((id) => reminderRows.find((row) => row.booking === id)?.n === 1).length;
      if (remindersOnce !== REMINDER_MINUTES.length)
        failures.push(`reminders sent exactly once: ${remindersOnce} of ${REMINDER_MINUTES.length}`);

      // Every instance serving again: its first successful write that started after the promotion (and after the switchover).
      const recovery = (since: number): number =>
        Math.max(
          ...instances.map((_, i) => {
            const first = writes.find((r) => r.instance === i && r.startedAt >= since && r.status >= 200 && r.status < 300);
            return first ? first.at - since : Number.POSITIVE_INFINITY;
          }),
        );
      const recoveryMs = recovery(promotedAt);
      const switchRecoveryMs = recovery(switchedAt);
      if (!(recoveryMs <= RECOVERY_GOAL_MS))
        failures.push(`instances serving ${recoveryMs} ms after the promotion > ${RECOVERY_GOAL_MS} ms`);
      if (!(switchRecoveryMs <= RECOVERY_GOAL_MS))
        failures.push(`instances serving ${switchRecoveryMs} ms after the switchover > ${RECOVERY_GOAL_MS} ms`);
      const notReady = readiness.filter((r) => r.status === 503).length;
      const readyOther = readiness.filter((r) => r.status !== 503 && r.status !== 200).length;
      if (readyOther) failures.push(`${readyOther} readiness answers other than 200 or 503`);
      const rewindLines = cluster
        .nodeLog(original)
        .split('\n')
        .filter((line) => /rewind/i.test(line));
      log(`${original}'s rewind lines:\n${rewindLines.join('\n')}`);
      if (process.env.DRILL_NODE_LOG) writeFileSync(process.env.DRILL_NODE_LOG, cluster.nodeLog(original));
      const rewound = rewindLines.some((line) => /running pg_rewind from/.test(line));

      const tally = (list: Request[]): string => {
        const byStatus = new Map<number, number>();
        for (const r of list) byStatus.set(r.status, (byStatus.get(r.status) ?? 0) + 1);
        return [...byStatus.entries()]
          .sort(([x], [y]) => x - y)
          .map(([status, n]) => `${status}: ${n}`)
          .join(', ');
      };
      const statuses = `writes ${tally(writes)}; reads ${tally(requests.filter((r) => !r.write))}`;
      const rows: [string, string, string][] = [
        [
          'Primary killed (SIGKILL) → standby promoted',
          `${promotedAt - killedAt} ms`,
          crashes > 1
            ? `after crash ${crashes}: Patroni restarted the primary in place ${crashes - 1}× first; ${promotedAt - firstKilledAt} ms since the first kill`
            : '',
        ],
        [
          'Write unavailability in the failover (first to last refused write)',
          `${unavailableMs} ms`,
          `${refusedInFailover.length} writes refused (503)`,
        ],
        ['Requests by status', statuses, bad.length ? 'FAIL' : 'only 2xx, 409, 503'],
        [
          'Slowest request',
          `${Math.round(slowest)} ms`,
          `limit ${REQUEST_LIMIT_MS} ms (connect ${CONNECT_TIMEOUT_MS} + statement ${STATEMENT_TIMEOUT_MS})`,
        ],
        ['Conflicts (409 other than key in use)', String(conflicts.length), ''],
        ['Acknowledged bookings found afterwards', `${found} / ${ackIds.length}`, acknowledgedSummary(acknowledged)],
        ['Duplicate bookings by Idempotency-Key', String(doubledByKey), ''],
        ['Duplicate bookings by host and time', String(doubledByTime + overSeated), ''],
        [
          'Webhook events received / written',
          `${events.length - missingEvents} / ${events.length}`,
          `${received.length} deliveries, ${receivedIds.size} webhook-ids, ${strangers} unknown`,
        ],
        [
          'Mails (confirmations + reminders) once each',
          `${[...expected.keys()].filter((k) => mails.get(k) === 1).length} / ${expected.size}`,
          `${missingMails} missing, ${doubledMails} doubled`,
        ],
        [
          'Reminders due during the drill sent once',
          `${remindersOnce} / ${REMINDER_MINUTES.length}`,
          `due ${new Date(due).toISOString().slice(11, 19)} UTC`,
        ],
        ['Promotion → every instance serving', `${recoveryMs} ms`, `goal ≤ ${RECOVERY_GOAL_MS} ms`],
        [
          'Old primary rejoined as sync standby',
          `${rejoinedAt - killedAt} ms after the kill`,
          rewound ? 'by pg_rewind' : 'no divergence: pg_rewind not needed',
        ],
        [
          'Switchover back under load',
          `${switchedAt - switchoverAt} ms`,
          `writes refused for ${switchoverUnavailableMs} ms (${refusedInSwitchover.length}); every instance serving ${switchRecoveryMs} ms after`,
        ],
        ['Readiness probes answering 503', `${notReady} of ${readiness.length}`, ''],
      ];
      const table = renderTable(rows, failures);
      const figures = {
        promotedMs: promotedAt - killedAt,
        unavailableMs,
        switchoverUnavailableMs,
        requests: requests.length,
        refused: refused.length,
        slowestMs: Math.round(slowest),
        acknowledged: ackIds.length,
        found,
        recoveryMs,
        switchRecoveryMs,
        loadSeconds: Math.round((loadEnd - killedAt + options.warmMs) / 1000),
        cpus: cpus().length,
      };
      return { table, failures, figures };
    } finally {
      await db.end();
    }
  } catch (error) {
    log(cluster.logs());
    if (worker) log(`--- worker\n${worker.output().slice(-3000)}`);
    throw error;
  } finally {
    await Promise.allSettled(instances.map((instance) => instance.app.close()));
    if (worker && worker.child.exitCode === null) {
      await new Promise<void>((done) => {
        worker!.child.once('exit', () => done());
        worker!.child.kill('SIGTERM');
      });
    }
    await admin.end().catch(() => undefined);
    await Promise.allSettled([smtp.stop(), receiver.stop()]);
    await cluster.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
}

function acknowledgedSummary(acknowledged: Acknowledged[]): string {
  const counts = new Map<string, number>();
  for (const ack of acknowledged) counts.set(ack.kind, (counts.get(ack.kind) ?? 0) + 1);
  return [...counts.entries()].map(([kind, n]) => `${n} ${kind}`).join(', ');
}

function renderTable(rows: [string, string, string][], failures: string[]): string {
  const widths = [0, 1, 2].map((i) => Math.max(...rows.map((row) => row[i].length), ['Promise', 'Measured', 'Notes'][i].length));
  const line = (cells: string[]): string => `| ${cells.map((cell, i) => cell.padEnd(widths[i])).join(' | ')} |`;
  return [
    line(['Promise', 'Measured', 'Notes']),
    `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`,
    ...rows.map(line),
    '',
    failures.length ? `FAILED:\n${failures.map((f) => `- ${f}`).join('\n')}` : 'Every promise kept.',
  ].join('\n');
}
