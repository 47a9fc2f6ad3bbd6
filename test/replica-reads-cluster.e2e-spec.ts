import pg from 'pg';
import { ReplicaReads, runMigrations } from '@app/database';
import { startTestApp, type TestApp } from './support/app.js';
import { bookingBody, bookingOrg, type BookingOrg } from './support/bookings.js';
import { PatroniCluster } from './support/patroni.js';

/*
 * Reads from standbys on the Patroni cluster of deploy/ha/ (issue 54 item 4): two instances whose
 * DATABASE_REPLICA_URLS is HAProxy's replica port. A booking made on one is gone from the other's availability at once,
 * whether the standby has replayed it yet or not (its replay paused: the primary answers); the standby stopped, reads
 * go to the primary with no error.
 */

async function query<T extends pg.QueryResultRow>(url: string, text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return (await client.query<T>(text)).rows;
  } finally {
    await client.end().catch(() => undefined);
  }
}

describe('reads from replicas in the Patroni cluster', () => {
  let cluster: PatroniCluster;
  let a: TestApp;
  let b: TestApp;
  let org: BookingOrg;
  let standby: string;
  let primary: string;

  beforeAll(async () => {
    cluster = await PatroniCluster.start();
    await query(cluster.url(), 'CREATE DATABASE scheduling');
    await runMigrations(cluster.url('scheduling'));
    primary = (await cluster.primary())!;
    standby = cluster.nodes.map((n) => n.name).find((name) => name !== primary)!;
    // HAProxy starts every server as up until its checks fail: ready once several connections in a row reach a standby.
    let inARow = 0;
    await cluster.waitFor(
      async () => {
        const [row] = await query<{ recovery: boolean }>(cluster.replicaUrl('scheduling'), 'SELECT pg_is_in_recovery() AS recovery').catch(
          () => [{ recovery: false }],
        );
        return row.recovery ? ++inARow >= 4 : (inARow = 0) > 0;
      },
      20_000,
      'HAProxy’s replica port to reach the standby',
    );
    const env = { DATABASE_REPLICA_URLS: cluster.replicaUrl('scheduling'), DB_CONNECT_TIMEOUT_MS: '1000' };
    a = await startTestApp({ databaseUrl: cluster.url('scheduling'), env });
    b = await startTestApp({ databaseUrl: cluster.url('scheduling'), env, clock: a.clock });
    org = await bookingOrg(a);
  }, 150_000);

  afterAll(async () => {
    await Promise.allSettled([a?.close(), b?.close()]);
    await cluster?.stop();
  });

  const key = () => ({ apiKey: org.apiKey });
  const counts = (t: TestApp) => ({ ...t.app.get(ReplicaReads).counts });
  async function starts(t: TestApp): Promise<string[]> {
    const res = await t.http.get(`/v1/availability?eventTypeId=${org.eventTypeId}&start=2027-03-02&end=2027-03-02&timezone=UTC`, key());
    expect(res.status).toBe(200);
    return res.body.slots.map((slot: { start: string }) => slot.start.slice(11, 16));
  }
  async function caughtUp(): Promise<boolean> {
    const [[sent], [replayed]] = await Promise.all([
      query<{ lsn: string }>(cluster.nodeUrl(primary, 'scheduling'), 'SELECT pg_current_wal_flush_lsn()::text AS lsn'),
      query<{ lsn: string }>(cluster.nodeUrl(standby, 'scheduling'), 'SELECT pg_last_wal_replay_lsn()::text AS lsn'),
    ]);
    return sent.lsn === replayed.lsn;
  }

  it('book on one instance, read availability at once on the other: the booked time is gone, replayed or not', async () => {
    expect(await starts(b)).toEqual(expect.arrayContaining(['10:00', '10:30']));

    // The standby receives the booking but does not replay it: b must not answer from it. Recovery pauses at the next
    // record it would replay, so it is given one (a write on the primary) until it has paused. Patroni is in
    // maintenance meanwhile: otherwise its replica's HA loop resumes a paused replay (PostgreSQL 14+) at its next turn.
    await cluster.setMaintenance(true, [primary, standby]);
    await query(cluster.nodeUrl(standby), 'SELECT pg_wal_replay_pause()');
    try {
      await cluster.waitFor(
        async () => {
          await query(
            cluster.nodeUrl(primary, 'scheduling'),
            'CREATE TABLE IF NOT EXISTS replay_probe (n int); INSERT INTO replay_probe VALUES (1)',
          );
          const [row] = await query<{ state: string }>(cluster.nodeUrl(standby), 'SELECT pg_get_wal_replay_pause_state() AS state');
          return row.state === 'paused';
        },
        10_000,
        'the standby’s replay to pause',
      );
      expect((await a.http.post('/v1/bookings', bookingBody(org.eventTypeId, '2027-03-02T10:00:00Z'), key())).status).toBe(201);
      const before = counts(b);
      expect(await starts(b)).not.toContain('10:00');
      expect(counts(b).primary - before.primary).toBe(1);
      // The standby still lacks it: the answer above was the primary's.
      const [held] = await query<{ n: string }>(
        cluster.nodeUrl(standby, 'scheduling'),
        `SELECT count(*) AS n FROM bookings WHERE starts_at = '2027-03-02T10:00:00Z'`,
      );
      expect(held.n).toBe('0');
    } finally {
      await query(cluster.nodeUrl(standby), 'SELECT pg_wal_replay_resume()');
      await cluster.setMaintenance(false, [primary, standby]);
    }

    // Replayed: the standby answers, the booking in it.
    await cluster.waitFor(caughtUp, 10_000, 'the standby to replay');
    let before = counts(b);
    expect(await starts(b)).not.toContain('10:00');
    expect(counts(b).replica - before.replica).toBe(1);

    // The audit log on the standby: its settlement boundary is the standby's own (its snapshot's xmin).
    await cluster.waitFor(caughtUp, 10_000, 'the standby to replay');
    before = counts(b);
    const page = await b.http.get('/v1/audit-log?limit=50', { token: org.owner.accessToken });
    expect(page.status).toBe(200);
    expect(page.body.entries.map((e: { action: string }) => e.action)).toContain('booking.created');
    const exported = await fetch(`${b.url}/v1/audit-log/export`, { headers: { authorization: `Bearer ${org.owner.accessToken}` } });
    expect(exported.status).toBe(200);
    const lines = (await exported.text()).trim().split('\n');
    expect(lines.map((line) => (JSON.parse(line) as { id: string }).id)).toEqual(page.body.entries.map((e: { id: string }) => e.id));
    expect(counts(b).replica - before.replica).toBe(3);

    // And at once, with nothing paused: whichever node answers, the booking is in it.
    expect((await a.http.post('/v1/bookings', bookingBody(org.eventTypeId, '2027-03-02T10:30:00Z'), key())).status).toBe(201);
    before = counts(b);
    expect(await starts(b)).not.toContain('10:30');
    const after = counts(b);
    expect(after.replica + after.primary - before.replica - before.primary).toBe(1);
  });

  it('the standby stopped: reads go to the primary, no error', async () => {
    await cluster.stopNode(standby);
    // Patroni has exited; its PostgreSQL may still be stopping (or left running: then it is killed). Meanwhile every read
    // answers, from whichever node is there.
    const accepts = () =>
      query(cluster.nodeUrl(standby), 'SELECT 1').then(
        () => true,
        () => false,
      );
    if (await accepts()) {
      try {
        cluster.killPostmaster(standby);
      } catch {
        // Gone between the two looks.
      }
    }
    await cluster.waitFor(
      async () => {
        expect(await starts(b)).not.toContain('10:00');
        return !(await accepts());
      },
      10_000,
      'the standby’s PostgreSQL to stop',
    );
    const before = counts(b);
    for (let i = 0; i < 4; i++) expect(await starts(b)).not.toEqual(expect.arrayContaining(['10:00']));
    const list = await b.http.get('/v1/bookings?limit=10', key());
    expect(list.status).toBe(200);
    expect(list.body.bookings).toHaveLength(2);
    const after = counts(b);
    expect([after.replica - before.replica, after.primary - before.primary]).toEqual([0, 5]);
  });
});
