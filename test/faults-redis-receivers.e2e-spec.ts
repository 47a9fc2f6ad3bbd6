import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { FixedClock } from '@app/common';
import { createRootLogger } from '../apps/api/src/logging/logger.js';
import { startTestApp, type TestApp } from './support/app.js';
import { bookingBody, bookingOrg, type BookingOrg } from './support/bookings.js';
import { createApiKey } from './support/factories.js';
import { call, type Outcome, sleep, StoppablePostgres, StoppableRedis } from './support/outage.js';
import { waitFor } from './support/process.js';
import { SmtpTestServer } from './support/smtp.js';
import { createWebhook, WebhookReceiver } from './support/webhooks.js';

/*
 * Redis stops under load on two instances; then the SMTP server and a webhook receiver are down for a
 * while. Figures are written to docs/operating/reliability.md.
 */

const REDIS_OUTAGE_MS = 2000;
/** RateLimitStorage's command timeout (500 ms) plus slack: Redis going away may cost a request no more. */
const REDIS_BOUND_MS = 1000;
const RECEIVERS_DOWN_MS = 5000;
const RETRY_SECONDS = 1;

interface Timed extends Outcome {
  at: number;
}

describe('faults: Redis, SMTP and webhook receivers go away', () => {
  const logs: string[] = [];
  let db: StoppablePostgres;
  let redis: StoppableRedis;
  let smtp: SmtpTestServer;
  let receiver: WebhookReceiver;
  let a: TestApp;
  let b: TestApp;
  let org: BookingOrg;

  beforeAll(async () => {
    [db, redis, smtp, receiver] = await Promise.all([
      StoppablePostgres.start(),
      StoppableRedis.start(),
      SmtpTestServer.start(),
      WebhookReceiver.start(),
    ]);
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logs.push(...chunk.toString().split('\n').filter(Boolean));
        done();
      },
    });
    const env = {
      REDIS_URL: redis.url,
      RATE_LIMIT_NAMESPACE: `faults:${randomBytes(4).toString('hex')}`,
      SMTP_URL: smtp.url,
      WEBHOOK_RETRY_SCHEDULE: Array(20).fill(RETRY_SECONDS).join(','),
      MAIL_RETRY_SCHEDULE: Array(20).fill(RETRY_SECONDS).join(','),
    };
    const clock = new FixedClock(Date.now());
    // One logger for both: Nest's static Logger follows the application created last.
    const logger = createRootLogger('warn', sink);
    a = await startTestApp({ databaseUrl: db.url, env, clock, logger });
    b = await startTestApp({ databaseUrl: db.url, env, clock, logger });
    org = await bookingOrg(a);
  }, 90_000);

  afterAll(async () => {
    await Promise.allSettled([a?.close(), b?.close()]);
    await Promise.allSettled([db?.dispose(), redis?.stop(), smtp?.stop(), receiver?.stop()]);
  });

  /** Six calls alternating a, b with a fresh key limited to 4 a minute: shared counting gives 4 × 200 then 429s. */
  async function limitPattern(): Promise<number[]> {
    const key = (await createApiKey(a.http, org.owner.accessToken, { rateLimitPerMinute: 4 })).apiKey;
    const statuses: number[] = [];
    for (const instance of [a, b, a, b, a, b]) {
      statuses.push((await call(`${instance.url}/v1/users/me`, { headers: { authorization: `ApiKey ${key}` } })).status);
    }
    return statuses;
  }

  it('keeps answering with per-instance limits while Redis is gone, within a bounded delay, and shares counting again when it returns', async () => {
    expect(await limitPattern()).toEqual([200, 200, 200, 200, 429, 429]);
    const outcomes: Timed[] = [];
    let done = false;
    const load = async (instance: TestApp): Promise<void> => {
      while (!done) {
        const outcome = await call(`${instance.url}/v1/users/me`, { headers: { authorization: `ApiKey ${org.apiKey}` } });
        outcomes.push({ ...outcome, at: Date.now() });
      }
    };
    const loops = [a, b, a, b].map(load);
    await sleep(300);
    const stoppedAt = Date.now();
    await redis.stop();
    await sleep(REDIS_OUTAGE_MS / 2);
    // Meanwhile each instance counts alone: a limit of 4 lets 4 through on each.
    const key = (await createApiKey(a.http, org.owner.accessToken, { rateLimitPerMinute: 4 })).apiKey;
    const perInstance: number[] = [];
    for (const instance of [a, a, a, a, a, b, b, b, b, b]) {
      perInstance.push((await call(`${instance.url}/v1/users/me`, { headers: { authorization: `ApiKey ${key}` } })).status);
    }
    await sleep(REDIS_OUTAGE_MS / 2);
    const restartedAt = Date.now();
    await redis.restart();
    // Shared counting resumes once the clients have reconnected (they retry every second).
    const shared = await waitFor(
      async () => {
        const pattern = await limitPattern();
        return pattern.join() === '200,200,200,200,429,429' ? pattern : undefined;
      },
      10_000,
      'shared counting again',
    );
    const resumedMs = Date.now() - restartedAt;
    done = true;
    await Promise.all(loops);

    expect(perInstance).toEqual([200, 200, 200, 200, 429, 200, 200, 200, 200, 429]);
    expect(shared).toEqual([200, 200, 200, 200, 429, 429]);
    expect(outcomes.filter((o) => o.status !== 200)).toEqual([]);
    const during = outcomes.filter((o) => o.at >= stoppedAt && o.at <= restartedAt);
    expect(during.length).toBeGreaterThan(20);
    const maxMs = Math.max(...during.map((o) => o.ms));
    expect(maxMs).toBeLessThan(REDIS_BOUND_MS);
    const warnings = logs.map((line) => JSON.parse(line) as { level: string; msg: string });
    expect(warnings.some((w) => w.level === 'warn' && /fall back to per-instance counters/.test(w.msg))).toBe(true);
    expect(warnings.some((w) => w.level === 'warn' && /Redis is back/.test(w.msg))).toBe(true);
    process.stdout.write(
      `faults-redis figures: ${JSON.stringify({ requests: outcomes.length, during: during.length, duringMaxMs: Math.round(maxMs), resumedMs })}\n`,
    );
  }, 60_000);

  it('retries mail and webhooks on their schedules while SMTP and the receiver are down, drops nothing, and drains when they return', async () => {
    const hook = await createWebhook(a.http, { apiKey: org.apiKey }, { url: receiver.url('/down'), events: ['booking.created'] });
    receiver.expectSecret('/down', hook.secret);
    await Promise.all([smtp.stop(), receiver.stop()]);
    const downAt = Date.now();
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const start = new Date(Date.UTC(2027, 2, 8, 9 + i)).toISOString();
      const res = await call(`${(i % 2 ? b : a).url}/v1/bookings`, {
        method: 'POST',
        headers: { authorization: `ApiKey ${org.apiKey}` },
        body: bookingBody(org.eventTypeId, start, { attendee: { email: `down-${i}@example.com`, firstName: 'Dee' } }),
      });
      expect(res.status).toBe(201);
      ids.push(res.body.booking.id);
    }
    await sleep(RECEIVERS_DOWN_MS);

    // While down: every delivery and mail is still pending, tried several times, attempts spaced by the schedule.
    const deliveries = await db.query<{ id: string; status: string; attempts: number }>(
      `SELECT id, status, attempts FROM webhook_deliveries WHERE webhook_id = $1`,
      [hook.id],
    );
    expect(deliveries).toHaveLength(6);
    expect(deliveries.every((d) => d.status === 'pending' && d.attempts >= 2)).toBe(true);
    const attempts = await db.query<{ delivery_id: string; started_at: Date }>(
      `SELECT delivery_id, started_at FROM webhook_attempts WHERE delivery_id = ANY($1::text[]) ORDER BY delivery_id, attempt`,
      [deliveries.map((d) => d.id)],
    );
    const gaps = attempts.flatMap((row, i) =>
      i > 0 && attempts[i - 1].delivery_id === row.delivery_id ? [row.started_at.getTime() - attempts[i - 1].started_at.getTime()] : [],
    );
    expect(gaps.length).toBeGreaterThan(0);
    // Spaced by the schedule (measured start to start, so a little under it) and never hammering.
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(RETRY_SECONDS * 1000 * 0.8);
    expect(Math.max(...deliveries.map((d) => d.attempts))).toBeLessThanOrEqual(RECEIVERS_DOWN_MS / 1000 / RETRY_SECONDS + 2);
    const mails = await db.query<{ status: string; attempts: number }>(
      `SELECT status, attempts FROM mail_outbox WHERE recipients && $1::text[]`,
      [ids.map((_, i) => `down-${i}@example.com`)],
    );
    expect(mails).toHaveLength(6);
    expect(mails.every((m) => m.status === 'pending' && m.attempts >= 2)).toBe(true);

    await Promise.all([smtp.restart(), receiver.restart()]);
    const backAt = Date.now();
    const announced = await waitFor(
      async () => {
        const seen = new Set(receiver.at('/down').map((r) => r.payload?.data?.booking?.id as string));
        return seen.size >= ids.length ? seen : undefined;
      },
      20_000,
      'every booking announced',
    );
    expect(announced).toEqual(new Set(ids));
    await waitFor(
      async () =>
        new Set(smtp.messages.flatMap((m) => m.envelope.to).filter((to) => to.startsWith('down-'))).size >= 6 ? true : undefined,
      20_000,
      'every confirmation mailed',
    );
    const drainedMs = Date.now() - backAt;
    // Each recorded as done (the answer is recorded just after it arrives): nothing failed, nothing left.
    const left = await waitFor(
      async () => {
        const [row] = await db.query<{ deliveries: number; mails: number }>(
          `SELECT (SELECT count(*)::int FROM webhook_deliveries WHERE status <> 'succeeded') AS deliveries,
                  (SELECT count(*)::int FROM mail_outbox WHERE status <> 'sent') AS mails`,
        );
        return row.deliveries === 0 && row.mails === 0 ? row : undefined;
      },
      10_000,
      'every delivery and mail recorded as done',
    );
    expect(left).toEqual({ deliveries: 0, mails: 0 });
    expect(receiver.unverified()).toEqual([]);
    process.stdout.write(
      `faults-receivers figures: ${JSON.stringify({
        downMs: backAt - downAt,
        attemptsWhileDown: Math.max(...deliveries.map((d) => d.attempts)),
        minGapMs: Math.min(...gaps),
        drainedMs,
      })}\n`,
    );
  }, 60_000);
});
