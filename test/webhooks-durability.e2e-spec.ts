import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DataSource } from 'typeorm';
import { startTestApp, TEST_DB_POOL_SIZE, TEST_ENCRYPTION_KEY, TEST_JWT_SECRET, type TestApp } from './support/app.js';
import { registerOwner } from './support/factories.js';
import { cleanEnv, compiledServer, spawnShell, waitFor, type SpawnedProcess } from './support/process.js';
import { createEventType } from './support/scheduling.js';
import { SmtpTestServer } from './support/smtp.js';
import { createWebhook, eventually, recordEvents, WebhookReceiver } from './support/webhooks.js';

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');
const REMINDERS = 300;

/**
 * The worker as it runs in production (compiled JS, its own process, the system clock), killed with SIGKILL while
 * webhook attempts are in flight, and while it sends a burst of reminders. Built into a directory of its own, so it
 * never races a build of dist/.
 */
describe('the worker survives kill -9: webhook delivery, reminders', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'sched-wh-durability-'));
  let worker: string;
  let api: TestApp;
  let receiver: WebhookReceiver;
  let smtp: SmtpTestServer;
  const processes: SpawnedProcess[] = [];

  beforeAll(async () => {
    ({ worker } = await compiledServer());
    receiver = await WebhookReceiver.start();
    smtp = await SmtpTestServer.start();
    api = await startTestApp({ env: { RUN_WORKERS: 'false' } });
  }, 60_000);

  afterAll(async () => {
    for (const proc of processes) if (proc.child.exitCode === null && proc.child.signalCode === null) proc.child.kill('SIGKILL');
    await api?.close();
    await receiver?.stop();
    await smtp?.stop();
    rmSync(scratch, { recursive: true, force: true });
  });

  function startWorker(): SpawnedProcess {
    const env = {
      ...cleanEnv({}),
      NODE_ENV: 'test',
      DATABASE_URL: api.databaseUrl,
      JWT_SECRET: TEST_JWT_SECRET,
      DB_POOL_SIZE: TEST_DB_POOL_SIZE,
      ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      LOG_LEVEL: 'info',
      DATA_DIR: join(scratch, 'data'),
      WEBHOOK_TIMEOUT_MS: '1000',
      WEBHOOK_RETRY_SCHEDULE: '1,1,1,1,1,1,1,1,1,1',
      SMTP_URL: smtp.url,
      REMINDERS_POLL_MS: '100',
      // Any free port for its /metrics: another test file's worker may have the default 9464.
      METRICS_PORT: '0',
    };
    const proc = spawnShell(`exec node ${worker}`, env, ROOT);
    processes.push(proc);
    return proc;
  }

  it('delivers every event after the worker is killed mid-attempt and started again', async () => {
    const owner = await registerOwner(api.http);
    const created = await createWebhook(api.http, { token: owner.accessToken }, { url: receiver.url('/durable'), events: ['*'] });
    receiver.expectSecret('/durable', created.secret);
    // The receiver holds every request open: the worker is killed with attempts in flight.
    receiver.respond('/durable', () => ({ status: 200, hang: true }));

    const first = startWorker();
    await waitFor(
      async () => (first.output().includes('Worker running') ? true : undefined),
      15_000,
      () => `the worker (${first.output().slice(-500)})`,
    );
    const events = Array.from({ length: 20 }, () => ({ organizationId: owner.organizationId, type: 'booking.created' as const }));
    const eventIds = await recordEvents(api, events);
    await receiver.waitFor(() => receiver.at('/durable').length >= 5, 5000, 'attempts in flight');
    first.child.kill('SIGKILL');
    expect(await first.exited).toBeNull();

    // Recorded while no worker runs at all.
    eventIds.push(...(await recordEvents(api, events.slice(0, 10))));
    receiver.respond('/durable', () => ({ status: 200 }));

    const second = startWorker();
    await receiver.waitFor(() => eventIds.every((id) => receiver.ids('/durable').has(id)), 20_000, 'every event after the restart');
    expect(receiver.unverified()).toEqual([]);
    expect(receiver.overlaps).toEqual([]);
    const statuses: { status: string; n: number }[] = await eventually(
      async () => {
        const rows: { status: string; n: number }[] = await api.app
          .get(DataSource)
          .query(`SELECT status, count(*)::int AS n FROM webhook_deliveries GROUP BY status`);
        return rows.length === 1 && rows[0].status === 'succeeded' ? rows : undefined;
      },
      // Requests the killed worker left hanging count as received above, but their deliveries are
      // leased until the lease runs out (timeout + 5 s) and only then retried and marked.
      20_000,
      'every delivery marked succeeded',
    );
    expect(statuses).toEqual([{ status: 'succeeded', n: 30 }]);

    second.child.kill('SIGTERM');
    const code = await second.exited;
    if (code !== 0) console.log(second.output().slice(-3000));
    expect(code).toBe(0);
  }, 60_000);

  const count = async (sql: string, params: unknown[] = []): Promise<number> =>
    (await api.app.get(DataSource).query(sql, params))[0].n as number;

  it('writes every reminder’s event and mails exactly once after the worker is killed mid-burst and started again', async () => {
    const owner = await registerOwner(api.http);
    const eventTypeId = await createEventType(
      api,
      { token: owner.accessToken },
      { durationMinutes: 30, reminders: [{ minutesBefore: 60, recipients: ['attendee', 'host'] }] },
    );
    const hook = await createWebhook(
      api.http,
      { token: owner.accessToken },
      { url: receiver.url('/reminders'), events: ['booking.reminder'] },
    );
    receiver.expectSecret('/reminders', hook.secret);
    // A burst due now (by the worker's system clock), written as the booking path writes it: the bookings a day ahead,
    // half an hour apart, each with its host row and its due row.
    await api.app.get(DataSource).query(
      `WITH b AS (
         INSERT INTO bookings (id, organization_id, event_type_id, livemode, status, starts_at, ends_at, host_user_id, attendee_email,
                               timezone, confirmation_token_hash, created_at, updated_at)
         SELECT 'bkg_rem' || lpad(i::text, 20, '0'), $1, $2, true, 'confirmed', now() + make_interval(days => 1, mins => 30 * i),
                now() + make_interval(days => 1, mins => 30 * i + 30), $3, 'attendee' || i || '@example.com', 'UTC', md5(i::text), now(), now()
           FROM generate_series(1, $4::integer) AS i
         RETURNING id, starts_at, ends_at
       ), h AS (
         INSERT INTO booking_hosts (booking_id, host_user_id, organization_id, event_type_id, livemode, status, during, created_at)
         SELECT id, $3, $1, $2, true, 'confirmed', tstzrange(starts_at, ends_at, '[)'), now() FROM b
       )
       INSERT INTO booking_reminders (organization_id, booking_id, minutes_before, due_at)
       SELECT $1, id, 60, now() - interval '1 minute' FROM b`,
      [owner.organizationId, eventTypeId, owner.userId, REMINDERS],
    );
    const recorded = (): Promise<number> => count(`SELECT count(*)::int AS n FROM domain_events WHERE type = 'booking.reminder'`);

    const first = startWorker();
    await waitFor(
      async () => ((await recorded()) > 0 ? true : undefined),
      30_000,
      () => `the first reminders (${first.output().slice(-500)})`,
    );
    first.child.kill('SIGKILL');
    expect(await first.exited).toBeNull();
    const atKill = await recorded();

    const second = startWorker();
    await waitFor(async () => ((await recorded()) === REMINDERS ? true : undefined), 60_000, 'every reminder recorded');
    await receiver.waitFor(() => receiver.ids('/reminders').size === REMINDERS, 60_000, 'every event delivered');
    await waitFor(
      async () =>
        (await count(
          `SELECT count(*)::int AS n FROM mail_outbox WHERE subject LIKE 'Reminder:%' AND status = 'pending' AND locked_until IS NULL`,
        )) === 0
          ? true
          : undefined,
      60_000,
      'every mail sent or leased',
    );
    console.log(`killed after ${atKill} of ${REMINDERS} reminders`);

    expect(await recorded()).toBe(REMINDERS);
    expect(await count(`SELECT count(*)::int AS n FROM booking_reminders WHERE sent_at IS NOT NULL`)).toBe(REMINDERS);
    expect(await count(`SELECT count(DISTINCT data->'booking'->>'id')::int AS n FROM domain_events WHERE type = 'booking.reminder'`)).toBe(
      REMINDERS,
    );
    // One mail per recipient and reminder in the outbox; the SMTP server has each message at most once (a message the
    // killed worker had in flight goes again, with its Message-ID, when its lease runs out).
    expect(await count(`SELECT count(*)::int AS n FROM mail_outbox WHERE subject LIKE 'Reminder:%'`)).toBe(REMINDERS * 2);
    const messageIds = smtp.messages.map((m) => m.parsed.messageId);
    expect(new Set(messageIds).size).toBe(messageIds.length);
    expect(receiver.unverified()).toEqual([]);
    const deliveries = await eventually(
      async () => {
        const rows: { status: string; n: number }[] = await api.app
          .get(DataSource)
          .query(`SELECT status, count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = $1 GROUP BY status`, [hook.id]);
        return rows.length === 1 && rows[0].status === 'succeeded' ? rows : undefined;
      },
      30_000,
      'every delivery marked succeeded',
    );
    expect(deliveries).toEqual([{ status: 'succeeded', n: REMINDERS }]);

    second.child.kill('SIGTERM');
    const code = await second.exited;
    if (code !== 0) console.log(second.output().slice(-3000));
    expect(code).toBe(0);
  }, 180_000);
});
