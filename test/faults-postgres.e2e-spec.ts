import { DataSource } from 'typeorm';
import { FixedClock } from '@app/common';
import { startTestApp, type TestApp } from './support/app.js';
import { bookingBody, bookingOrg, type BookingOrg } from './support/bookings.js';
import { call, type Outcome, sleep, StoppablePostgres } from './support/outage.js';
import { waitFor } from './support/process.js';
import { SmtpTestServer } from './support/smtp.js';
import { createWebhook, WebhookReceiver } from './support/webhooks.js';

/*
 * PostgreSQL stops (fast shutdown: sessions terminated, connections refused) while two instances
 * serve bookings and availability, then comes back. Figures are written to docs/operating/reliability.md.
 */

const STATEMENT_TIMEOUT_MS = 1500;
const CONNECT_TIMEOUT_MS = 1000;
const BOOKINGS = 60;
const CLIENTS = 6;
const OUTAGE_MS = 3000;
/** A request during the outage must come back within this (a connect timeout plus slack), never hang. */
const FAST_FAIL_MS = CONNECT_TIMEOUT_MS + 1500;

/** The first BOOKINGS half-hour starts of the week's working hours (09:00–17:00 UTC, Monday to Friday). */
function freeStarts(count: number): string[] {
  const result: string[] = [];
  for (let day = 0; result.length < count; day++) {
    const date = new Date(Date.UTC(2027, 2, 1 + day));
    if (date.getUTCDay() === 0 || date.getUTCDay() === 6) continue;
    for (let slot = 0; slot < 16 && result.length < count; slot++) {
      result.push(new Date(date.getTime() + (9 * 60 + slot * 30) * 60_000).toISOString());
    }
  }
  return result;
}

interface Timed extends Outcome {
  at: number;
  instance: string;
  kind: 'booking' | 'availability';
}

describe('faults: PostgreSQL goes away under load', () => {
  let db: StoppablePostgres;
  let smtp: SmtpTestServer;
  let receiver: WebhookReceiver;
  let a: TestApp;
  let b: TestApp;
  let org: BookingOrg;

  beforeAll(async () => {
    [db, smtp, receiver] = await Promise.all([StoppablePostgres.start(), SmtpTestServer.start(), WebhookReceiver.start()]);
    const env = {
      SMTP_URL: smtp.url,
      DB_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
      DB_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS),
      WEBHOOK_RETRY_SCHEDULE: '1,1,1,1,1,1,1,1,1,1',
      MAIL_RETRY_SCHEDULE: '1,1,1,1,1,1,1,1,1,1',
      LOG_LEVEL: process.env.FAULTS_LOG_LEVEL ?? 'silent',
    };
    const clock = new FixedClock(Date.now());
    a = await startTestApp({ databaseUrl: db.url, env, clock });
    b = await startTestApp({ databaseUrl: db.url, env, clock });
    org = await bookingOrg(a);
    const hook = await createWebhook(a.http, { apiKey: org.apiKey }, { url: receiver.url('/hook'), events: ['booking.created'] });
    receiver.expectSecret('/hook', hook.secret);
  }, 90_000);

  afterAll(async () => {
    await Promise.allSettled([a?.close(), b?.close()]);
    await Promise.allSettled([db?.dispose(), smtp?.stop(), receiver?.stop()]);
  });

  /**
   * Clients that book `starts` (one Idempotency-Key each, alternating instances) and retry every failed
   * booking with its key until they get its answer, plus an availability poller per instance.
   */
  function startLoad(starts: string[], label: string) {
    const instances = [a, b];
    const outcomes: Timed[] = [];
    const created = new Map<number, string>();
    const headers = { authorization: `ApiKey ${org.apiKey}` };
    const deadline = Date.now() + 60_000;
    let next = 0;
    let done = false;
    const client = async (): Promise<void> => {
      for (let i = next++; i < starts.length; i = next++) {
        const instance = instances[i % 2];
        while (Date.now() < deadline) {
          const outcome = await call(`${instance.url}/v1/bookings`, {
            method: 'POST',
            headers: { ...headers, 'idempotency-key': `${label}-${i}` },
            body: bookingBody(org.eventTypeId, starts[i], { attendee: { email: `${label}-${i}@example.com`, firstName: 'Ann' } }),
          });
          outcomes.push({ ...outcome, at: Date.now(), instance: instance === a ? 'a' : 'b', kind: 'booking' });
          if (outcome.status === 201) {
            created.set(i, outcome.body.booking.id);
            break;
          }
          const retryable = outcome.status === 503 || (outcome.status === 409 && outcome.body?.code === 'IDEMPOTENCY_KEY_IN_USE');
          // Anything else is a failure the assertions report; the client gives up on this key.
          if (!retryable) break;
          await sleep(100);
        }
      }
    };
    const availability = async (instance: TestApp): Promise<void> => {
      const query = `eventTypeId=${org.eventTypeId}&start=2027-03-01&end=2027-03-05&timezone=UTC`;
      while (!done) {
        const outcome = await call(`${instance.url}/v1/availability?${query}`, { headers });
        outcomes.push({ ...outcome, at: Date.now(), instance: instance === a ? 'a' : 'b', kind: 'availability' });
        await sleep(50);
      }
    };
    const pollers = [availability(a), availability(b)];
    const clients = Array.from({ length: CLIENTS }, () => client());
    const finished = (async () => {
      await Promise.all(clients);
      done = true;
      await Promise.all(pollers);
    })();
    return { outcomes, created, finished };
  }

  async function storedBookings(emailPrefix: string): Promise<{ id: string; attendee_email: string }[]> {
    return db.query(
      `SELECT id, attendee_email FROM bookings WHERE organization_id = $1 AND status = 'confirmed' AND attendee_email LIKE $2`,
      [org.owner.organizationId, `${emailPrefix}-%`],
    );
  }

  it('answers fast 503s during the outage, recovers alone, and ends with one booking per key, each announced and mailed', async () => {
    const instances = [a, b];
    const { outcomes, created, finished } = startLoad(freeStarts(BOOKINGS), 'attendee');

    // The outage starts once a quarter of the bookings are in.
    await waitFor(async () => (created.size >= BOOKINGS / 4 ? true : undefined), 20_000, 'the first bookings');
    const outageStart = Date.now();
    await db.stop();
    const probes: { path: string; outcome: Outcome }[] = [];
    while (Date.now() - outageStart < OUTAGE_MS) {
      for (const instance of instances) {
        for (const path of ['/health', '/health/ready']) probes.push({ path, outcome: await call(`${instance.url}${path}`) });
      }
      await sleep(250);
    }
    const restartAt = Date.now();
    await db.restart();
    const restarted = Date.now();

    await finished;
    const tally = (list: Timed[]): Record<string, number> =>
      list.reduce<Record<string, number>>((acc, o) => ({ ...acc, [`${o.kind} ${o.status}`]: (acc[`${o.kind} ${o.status}`] ?? 0) + 1 }), {});
    process.stdout.write(
      `faults-postgres tally: before ${JSON.stringify(tally(outcomes.filter((o) => o.at < outageStart)))} during ${JSON.stringify(
        tally(outcomes.filter((o) => o.at >= outageStart && o.at < restarted)),
      )} after ${JSON.stringify(tally(outcomes.filter((o) => o.at >= restarted)))}\n`,
    );

    // Requests that started and ended inside the outage: all fast 503s with the API's error body.
    const during = outcomes.filter((o) => o.at - o.ms > outageStart + 200 && o.at < restartAt);
    expect(during.length).toBeGreaterThan(20);
    expect(during.filter((o) => o.status !== 503)).toEqual([]);
    expect(Math.max(...during.map((o) => o.ms))).toBeLessThan(FAST_FAIL_MS);
    for (const o of during) {
      expect(o.body).toEqual({
        code: 'SERVICE_UNAVAILABLE',
        message: 'The service is temporarily unavailable; retry shortly',
        requestId: expect.any(String),
      });
    }
    // Never a hanging socket nor another 5xx, before, during or after.
    expect(outcomes.filter((o) => o.status === 0 || (o.status >= 500 && o.status !== 503))).toEqual([]);
    expect(probes.filter((p) => p.path === '/health').every((p) => p.outcome.status === 200)).toBe(true);
    expect(probes.filter((p) => p.path === '/health/ready').every((p) => p.outcome.status === 503)).toBe(true);

    // The pools recovered by themselves: both instances answered successfully after the restart.
    const after = outcomes.filter((o) => o.at - o.ms >= restarted);
    for (const name of ['a', 'b']) {
      const firstOk = after.find((o) => o.instance === name && o.status < 300);
      expect(firstOk).toBeDefined();
      expect(firstOk!.at - restarted).toBeLessThan(5000);
    }
    for (const instance of instances) expect((await call(`${instance.url}/health/ready`)).status).toBe(200);

    // Nothing lost, nothing doubled: one booking per key, every 201 seen is stored.
    const stored = await storedBookings('attendee');
    expect(stored).toHaveLength(BOOKINGS);
    expect(new Set(stored.map((row) => row.attendee_email)).size).toBe(BOOKINGS);
    expect(new Set(stored.map((row) => row.id))).toEqual(new Set(created.values()));

    // Every booking announced once per endpoint (by webhook-id) and its mail sent: the jobs resumed alone.
    const announced = await waitFor(
      async () => {
        const ids = new Map(receiver.at('/hook').map((r) => [r.webhookId, r.payload?.data?.booking?.id as string]));
        return ids.size >= BOOKINGS ? ids : undefined;
      },
      30_000,
      'a booking.created delivery per booking',
    );
    // One delivery per booking: as many distinct webhook-ids as bookings, covering each booking.
    expect(announced.size).toBe(BOOKINGS);
    expect(new Set(announced.values())).toEqual(new Set(created.values()));
    expect(receiver.unverified()).toEqual([]);
    const mailed = await waitFor(
      async () => {
        const recipients = new Set(smtp.messages.flatMap((m) => m.envelope.to).filter((to) => to.startsWith('attendee-')));
        return recipients.size >= BOOKINGS ? recipients : undefined;
      },
      30_000,
      'a confirmation mail per booking',
    );
    expect(mailed.size).toBe(BOOKINGS);

    const figures = {
      requests: outcomes.length,
      during: during.length,
      duringMaxMs: Math.round(Math.max(...during.map((o) => o.ms))),
      duringP50Ms: Math.round(during.map((o) => o.ms).sort((x, y) => x - y)[Math.floor(during.length / 2)]),
      recoveryMs: Math.max(...['a', 'b'].map((n) => after.find((o) => o.instance === n && o.status < 300)!.at - restarted)),
      deliveries: receiver.at('/hook').length,
      uniqueDeliveries: announced.size,
      mails: smtp.messages.filter((m) => m.envelope.to.some((to) => to.startsWith('attendee-'))).length,
    };
    process.stdout.write(`faults-postgres outage figures: ${JSON.stringify(figures)}\n`);
  }, 120_000);

  it('fails fast with 503 when a lock outlasts the statement timeout, writing nothing, and the retry succeeds', async () => {
    const lock = await db.client();
    const headers = { authorization: `ApiKey ${org.apiKey}` };
    const start = '2027-03-26T09:00:00.000Z';
    try {
      await lock.query('BEGIN');
      await lock.query('LOCK TABLE booking_hosts IN ACCESS EXCLUSIVE MODE');
      const [booking, slots] = await Promise.all([
        call(`${a.url}/v1/bookings`, {
          method: 'POST',
          headers: { ...headers, 'idempotency-key': 'slow-1' },
          body: bookingBody(org.eventTypeId, start),
        }),
        call(`${b.url}/v1/availability?eventTypeId=${org.eventTypeId}&start=2027-03-26&end=2027-03-26&timezone=UTC`, { headers }),
      ]);
      for (const outcome of [booking, slots]) {
        expect(outcome.status).toBe(503);
        expect(outcome.body.code).toBe('SERVICE_UNAVAILABLE');
        expect(outcome.ms).toBeGreaterThanOrEqual(STATEMENT_TIMEOUT_MS - 100);
        expect(outcome.ms).toBeLessThan(STATEMENT_TIMEOUT_MS + 2000);
      }
      process.stdout.write(
        `faults-postgres slow figures: ${JSON.stringify({ bookingMs: Math.round(booking.ms), availabilityMs: Math.round(slots.ms) })}\n`,
      );
    } finally {
      await lock.query('ROLLBACK');
      await lock.end();
    }
    // Nothing half-written: no booking, no host row, no event, no stored response for the key.
    const [written] = await db.query<{ bookings: number; events: number; keys: number }>(
      `SELECT (SELECT count(*)::int FROM bookings WHERE starts_at = $1) AS bookings,
              (SELECT count(*)::int FROM domain_events WHERE data->'booking'->>'startsAt' = $2) AS events,
              (SELECT count(*)::int FROM idempotency_keys WHERE key = 'slow-1') AS keys`,
      [start, start],
    );
    expect(written).toEqual({ bookings: 0, events: 0, keys: 0 });
    const retried = await call(`${a.url}/v1/bookings`, {
      method: 'POST',
      headers: { ...headers, 'idempotency-key': 'slow-1' },
      body: bookingBody(org.eventTypeId, start),
    });
    expect(retried.status).toBe(201);
  }, 30_000);

  it('replaces connections killed by pg_terminate_backend under load, losing and doubling nothing', async () => {
    const starts = freeStarts(BOOKINGS + 20).slice(BOOKINGS);
    const { outcomes, created, finished } = startLoad(starts, 'killed');
    await waitFor(async () => (created.size >= 5 ? true : undefined), 20_000, 'the first bookings');
    const [{ killed }] = await db.query<{ killed: number }>(
      `SELECT count(*)::int AS killed FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend') terminated`,
    );
    await finished;
    expect(killed).toBeGreaterThan(2);
    expect(outcomes.filter((o) => o.status === 0 || (o.status >= 500 && o.status !== 503))).toEqual([]);
    const stored = await storedBookings('killed');
    expect(stored).toHaveLength(starts.length);
    expect(new Set(stored.map((row) => row.id))).toEqual(new Set(created.values()));
    process.stdout.write(
      `faults-postgres killed figures: ${JSON.stringify({ killed, requests: outcomes.length, unavailable: outcomes.filter((o) => o.status === 503).length })}\n`,
    );
  }, 60_000);

  it('survives a pooled connection cut while checked out between queries (a failover cutting sessions): no unhandled error', async () => {
    interface PooledClient {
      query(text: string): Promise<{ rows: { pid: number }[] }>;
      release(destroy?: boolean): void;
      once(event: 'end', listener: () => void): void;
    }
    // The pool gives the client without an error listener of its own; TypeORM adds one only while a query runner holds it.
    const pool = (a.app.get(DataSource).driver as unknown as { master: { connect(): Promise<PooledClient> } }).master;
    const client = await pool.connect();
    const [{ pid }] = (await client.query('SELECT pg_backend_pid() AS pid')).rows;
    const ended = new Promise<void>((resolve) => client.once('end', resolve));
    await db.query('SELECT pg_terminate_backend($1)', [pid]);
    await ended;
    await sleep(50);
    client.release(true);
    // Still serving: the process did not die of an unhandled 'error' event.
    const headers = { authorization: `ApiKey ${org.apiKey}` };
    expect(
      (await call(`${a.url}/v1/availability?eventTypeId=${org.eventTypeId}&start=2027-03-01&end=2027-03-01&timezone=UTC`, { headers }))
        .status,
    ).toBe(200);
  }, 20_000);
});
