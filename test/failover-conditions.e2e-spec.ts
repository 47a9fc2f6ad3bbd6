import pg from 'pg';
import { runMigrations } from '@app/database';
import { startTestApp, type TestApp } from './support/app.js';
import { bookingBody, bookingOrg, type BookingOrg } from './support/bookings.js';
import { call, sleep, type Outcome } from './support/outage.js';
import { PatroniCluster } from './support/patroni.js';

/*
 * Contract § 19 "High availability", the bad conditions on the Patroni cluster of deploy/ha/ (the drill itself:
 * test/failover.e2e-spec.ts): the synchronous standby down, etcd down, HAProxy restarted, each under booking load from
 * two instances. Never a 500, never a request past DB_CONNECT_TIMEOUT_MS + DB_STATEMENT_TIMEOUT_MS, nothing lost.
 */

const CONNECT_TIMEOUT_MS = 1000;
const STATEMENT_TIMEOUT_MS = 2000;
const LIMIT_MS = CONNECT_TIMEOUT_MS + STATEMENT_TIMEOUT_MS;

interface Timed extends Outcome {
  at: number;
  startedAt: number;
}

describe('failover conditions: standby down, etcd down, HAProxy restarted', () => {
  let cluster: PatroniCluster;
  let a: TestApp;
  let b: TestApp;
  let org: BookingOrg;
  let databaseUrl: string;
  let slot = 0;

  beforeAll(async () => {
    cluster = await PatroniCluster.start();
    const admin = new pg.Client({ connectionString: cluster.url() });
    await admin.connect();
    await admin.query('CREATE DATABASE scheduling');
    await admin.end();
    databaseUrl = cluster.url('scheduling');
    await runMigrations(databaseUrl);
    const env = { DB_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS), DB_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS) };
    a = await startTestApp({ databaseUrl, env });
    b = await startTestApp({ databaseUrl, env, clock: a.clock });
    org = await bookingOrg(a);
  }, 120_000);

  afterAll(async () => {
    await Promise.allSettled([a?.close(), b?.close()]);
    await cluster?.stop();
  });

  /** Bookings of fresh slots from both instances, each key retried on 503 until it gets its answer, until `stop()`. */
  function load(label: string) {
    const outcomes: Timed[] = [];
    const created: string[] = [];
    let stopped = false;
    const client = async (instance: TestApp): Promise<void> => {
      while (!stopped) {
        const n = slot++;
        const start = new Date(Date.parse('2027-03-01T09:00:00Z') + Math.floor(n / 16) * 86_400_000 + (n % 16) * 30 * 60_000);
        if (start.getUTCDay() === 0 || start.getUTCDay() === 6) continue;
        for (let attempt = 0; ; attempt++) {
          const startedAt = Date.now();
          const outcome = await call(`${instance.url}/v1/bookings`, {
            method: 'POST',
            headers: { authorization: `ApiKey ${org.apiKey}`, 'idempotency-key': `${label}-${n}` },
            body: bookingBody(org.eventTypeId, start.toISOString(), { attendee: { email: `${label}-${n}@example.com` } }),
          });
          outcomes.push({ ...outcome, at: Date.now(), startedAt });
          if (outcome.status === 201) created.push(outcome.body.booking.id);
          if (outcome.status !== 503 && !(outcome.status === 409 && outcome.body?.code === 'IDEMPOTENCY_KEY_IN_USE')) break;
          if (stopped && attempt > 50) break;
          await sleep(200);
        }
        await sleep(100);
      }
    };
    const running = Promise.all([client(a), client(b)]);
    return {
      outcomes,
      created,
      stop: async () => {
        stopped = true;
        await running;
      },
    };
  }

  async function expectKept(outcomes: Timed[], created: string[]): Promise<void> {
    expect(outcomes.filter((o) => o.status !== 201 && o.status !== 409 && o.status !== 503)).toEqual([]);
    expect(Math.max(...outcomes.map((o) => o.ms))).toBeLessThanOrEqual(LIMIT_MS);
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM bookings WHERE id = ANY($1) AND status = 'confirmed'`,
        [created],
      );
      expect(rows[0].n).toBe(created.length);
    } finally {
      await client.end();
    }
  }

  it("is locked down as deploy/ha says: Patroni's REST API, etcd and PostgreSQL each want credentials", async () => {
    const primary = (await cluster.primary())!;
    const rest = `http://127.0.0.1:${cluster.node(primary).restPort}`;
    // A call that changes something: refused without the REST API's user, accepted with it.
    expect((await fetch(`${rest}/reload`, { method: 'POST' })).status).toBe(401);
    const wrong = `Basic ${Buffer.from('patroni:wrong').toString('base64')}`;
    expect((await fetch(`${rest}/reload`, { method: 'POST', headers: { authorization: wrong } })).status).toBe(401);
    expect((await fetch(`${rest}/reload`, { method: 'POST', headers: { authorization: cluster.restAuthorization() } })).status).toBe(202);
    // etcd: no read without a user's token.
    const range = await fetch(`${cluster.etcdUrl}/v3/kv/range`, {
      method: 'POST',
      body: JSON.stringify({ key: Buffer.from('/service/').toString('base64'), range_end: Buffer.from('/service0').toString('base64') }),
    });
    expect(await range.text()).toMatch(/user name is empty|invalid auth token|permission denied/);
    // PostgreSQL: no connection without the password, and no `trust` line at all.
    const anonymous = new pg.Client({ connectionString: cluster.nodeUrl(primary).replace(`:${cluster.password}@`, '@') });
    anonymous.on('error', () => undefined);
    await expect(anonymous.connect()).rejects.toThrow(/password/);
    await anonymous.end().catch(() => undefined);
    const admin = new pg.Client({ connectionString: cluster.nodeUrl(primary) });
    await admin.connect();
    try {
      const { rows } = await admin.query<{ type: string; user_name: string[]; auth_method: string }>(
        'SELECT type, user_name, auth_method FROM pg_hba_file_rules',
      );
      expect(rows.filter((r) => r.auth_method !== 'scram-sha-256')).toEqual([
        { type: 'local', user_name: ['postgres'], auth_method: 'peer' },
      ]);
    } finally {
      await admin.end();
    }
  }, 30_000);

  it('keeps taking writes with the standby down (Patroni drops synchronous mode), and it catches up on return', async () => {
    const { outcomes, created, stop } = load('standby');
    await sleep(1000);
    const primary = await cluster.primary();
    const standby = cluster.nodes.find((n) => n.name !== primary)!.name;
    const downAt = Date.now();
    await cluster.stopNode(standby);
    await sleep(6000);
    cluster.startNode(standby);
    await cluster.waitFor(
      async () => (await cluster.members()).some((m) => m.name === standby && m.role === 'sync_standby'),
      60_000,
      'the standby back',
    );
    await sleep(500);
    await stop();
    await expectKept(outcomes, created);
    // Writes went on while the standby was away: 201s that started after it stopped and before it returned.
    expect(outcomes.filter((o) => o.status === 201 && o.startedAt > downAt + 3000 && o.at < downAt + 6000).length).toBeGreaterThan(0);
    process.stdout.write(`failover-conditions standby down: ${JSON.stringify(tally(outcomes))}\n`);
  }, 90_000);

  it('answers 503 (never a hang) while etcd is down and the primary steps down, and serves again once it is back', async () => {
    const { outcomes, created, stop } = load('etcd');
    await sleep(1000);
    const downAt = Date.now();
    await cluster.killEtcd();
    // Patroni demotes the primary after retry_timeout (4 s); the proxy then finds no primary.
    await cluster.waitFor(async () => (await cluster.primary()) === undefined, 30_000, 'the primary to step down');
    await sleep(2000);
    const ready = await Promise.all([a, b].map((t) => call(`${t.url}/health/ready`)));
    expect(ready.map((r) => r.status)).toEqual([503, 503]);
    await cluster.startEtcd();
    await cluster.waitFor(async () => (await cluster.primary()) !== undefined, 60_000, 'a primary again');
    const backAt = Date.now();
    await cluster.waitFor(async () => outcomes.some((o) => o.status === 201 && o.startedAt > backAt), 20_000, 'writes again');
    await stop();
    await expectKept(outcomes, created);
    expect(outcomes.filter((o) => o.status === 503 && o.startedAt > downAt).length).toBeGreaterThan(0);
    process.stdout.write(`failover-conditions etcd down: ${JSON.stringify(tally(outcomes))}\n`);
  }, 120_000);

  it('recovers by itself when HAProxy restarts under load', async () => {
    const { outcomes, created, stop } = load('proxy');
    await sleep(1000);
    await cluster.stopHaproxy();
    await sleep(1000);
    await cluster.startHaproxy();
    const backAt = Date.now();
    await cluster.waitFor(async () => outcomes.some((o) => o.status === 201 && o.startedAt > backAt), 10_000, 'writes again');
    await stop();
    await expectKept(outcomes, created);
    process.stdout.write(`failover-conditions haproxy restarted: ${JSON.stringify(tally(outcomes))}\n`);
  }, 60_000);
});

function tally(outcomes: Timed[]): Record<string, number> {
  return outcomes.reduce<Record<string, number>>((acc, o) => ({ ...acc, [o.status]: (acc[o.status] ?? 0) + 1 }), {});
}
