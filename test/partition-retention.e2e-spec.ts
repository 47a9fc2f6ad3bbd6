import pg from 'pg';
import { DataSource } from 'typeorm';
import { FixedClock } from '@app/common';
import { monthAttachLocks, PeriodicJobs } from '../apps/api/src/jobs/index.js';
import { startTestApp, type TestApp } from './support/app.js';
import { registerOwner } from './support/factories.js';
import { createWebhook } from './support/webhooks.js';

/**
 * The append-only logs are partitioned by month and their retention drops whole months (docs/operating/partitions.md),
 * on the Clock: the retention jobs make the Clock's month and the next two, drop each month wholly older than the
 * retention period (unless it still holds a row in use), and delete the expired rows that remain, as before.
 */
describe('retention by monthly partitions', () => {
  let t: TestApp;
  let db: DataSource;
  let org: string;
  let apiKey: string;
  let webhookId: string;
  const clock = new FixedClock('2040-03-15T12:00:00.000Z');

  beforeAll(async () => {
    // The jobs run on demand here (runOnce), not on their timers.
    t = await startTestApp({ clock, env: { RUN_WORKERS: 'false', RETENTION_DAYS: '30', AUDIT_RETENTION_DAYS: '365' } });
    db = t.app.get(DataSource);
    const owner = await registerOwner(t.http);
    org = owner.organizationId;
    // A key, not the session: the clock moves years on here.
    apiKey = (await t.http.post('/v1/api-keys', { name: 'k' }, { token: owner.accessToken })).body.apiKey;
    webhookId = (await createWebhook(t.http, { token: owner.accessToken }, { url: 'https://example.com/hook', events: ['*'] })).id;
    // The sign-up's own events wait for a dispatcher that does not run here: out of the way of the months' fate.
    await db.query('DELETE FROM domain_events');
  });
  afterAll(async () => {
    await t.close();
  });

  const partitionsOf = async (table: string): Promise<string[]> =>
    (
      (await db.query(`SELECT inhrelid::regclass::text AS name FROM pg_inherits WHERE inhparent = $1::regclass ORDER BY 1`, [table])) as {
        name: string;
      }[]
    ).map((row) => row.name);
  /** Each row's id (or delivery id) with the partition that holds it. */
  const rowsOf = async (table: string, id: string, where: string): Promise<string[]> =>
    (
      (await db.query(`SELECT ${id} AS id, tableoid::regclass::text AS part FROM ${table} WHERE ${where} ORDER BY 1`)) as {
        id: string;
        part: string;
      }[]
    ).map((row) => `${row.id} in ${row.part}`);
  const audit = (id: string, at: string): Promise<unknown> =>
    db.query(
      `INSERT INTO audit_entries (id, organization_id, occurred_at, action, actor_type, resource_type) VALUES ($1, $2, $3, 'x.test', 'system', 'x')`,
      [id, org, at],
    );
  const event = (id: string, at: string, dispatched: boolean): Promise<unknown> =>
    db.query(
      `INSERT INTO domain_events (id, organization_id, livemode, type, data, created_at, dispatched_at)
       VALUES ($1, $2, true, 'booking.created', '{}', $3, $4)`,
      [id, org, at, dispatched ? at : null],
    );
  const delivery = async (id: string, at: string, status: 'succeeded' | 'pending'): Promise<void> => {
    await db.query(
      `INSERT INTO webhook_deliveries (id, webhook_id, organization_id, event_id, event_type, body, status, max_attempts, created_at)
       VALUES ($1, $2, $3, $1, 'booking.created', '{}', $4, 8, $5)`,
      [id, webhookId, org, status, at],
    );
    await db.query(
      `INSERT INTO webhook_attempts (delivery_id, organization_id, attempt, started_at, duration_ms) VALUES ($1, $2, 1, $3, 5)`,
      [id, org, at],
    );
  };

  it('makes the Clock’s month and the next two, drops the migration’s past ones, and DEFAULT takes a month not made yet', async () => {
    await t.app.get(PeriodicJobs).runOnce();
    // The migration's partitions (the old table as `_p_legacy`, the months after it) ended long before 2040's cut-offs.
    for (const table of ['audit_entries', 'domain_events', 'webhook_attempts']) {
      expect(await partitionsOf(table)).toEqual([`${table}_default`, `${table}_p2040_03`, `${table}_p2040_04`, `${table}_p2040_05`]);
    }

    await audit('aud_march', '2040-03-10T00:00:00Z');
    await audit('aud_april', '2040-04-10T00:00:00Z');
    await audit('aud_may', '2040-05-20T00:00:00Z');
    await audit('aud_september', '2040-09-01T00:00:00Z'); // no month made yet: the DEFAULT partition takes it
    await event('evt_march_dispatched', '2040-03-05T00:00:00Z', true);
    await event('evt_april_waiting', '2040-04-02T00:00:00Z', false);
    await event('evt_april_dispatched', '2040-04-03T00:00:00Z', true);
    await delivery('del_march_succeeded', '2040-03-05T00:00:00Z', 'succeeded');
    await delivery('del_april_pending', '2040-04-02T00:00:00Z', 'pending');

    expect(await rowsOf('audit_entries', 'id', `action = 'x.test'`)).toEqual([
      'aud_april in audit_entries_p2040_04',
      'aud_march in audit_entries_p2040_03',
      'aud_may in audit_entries_p2040_05',
      'aud_september in audit_entries_default',
    ]);
  });

  it('a month later: the new months take in the rows DEFAULT caught for them; the months wholly past retention go', async () => {
    // Outbox and attempts keep 30 days: the cut-off is 2040-06-15, so March, April and May are past. April's events
    // hold one still waiting to be fanned out: that month stays, and its finished event is deleted alone. April's (and
    // May's) attempts may belong to a delivery still pending: they stay.
    clock.set('2040-07-15T12:00:00.000Z');
    const counts = await t.app.get(PeriodicJobs).runOnce();

    expect(await partitionsOf('audit_entries')).toEqual(
      expect.arrayContaining(['audit_entries_p2040_07', 'audit_entries_p2040_08', 'audit_entries_p2040_09']),
    );
    expect(await rowsOf('audit_entries', 'id', `id = 'aud_september'`)).toEqual(['aud_september in audit_entries_p2040_09']);
    expect(await rowsOf('audit_entries_default', 'id', 'true')).toEqual([]);

    expect(counts['domain-event-retention']).toBe(2); // March's event (with its month), April's finished one
    expect(counts['webhook-delivery-retention']).toBe(1); // the succeeded delivery; its attempt went with March
    expect(await partitionsOf('domain_events')).not.toContain('domain_events_p2040_03');
    expect(await partitionsOf('domain_events')).toContain('domain_events_p2040_04');
    expect(await rowsOf('domain_events', 'id', 'true')).toEqual(['evt_april_waiting in domain_events_p2040_04']);
    expect(await partitionsOf('webhook_attempts')).not.toContain('webhook_attempts_p2040_03');
    expect(await partitionsOf('webhook_attempts')).toContain('webhook_attempts_p2040_04');
    expect(await rowsOf('webhook_attempts', 'delivery_id', 'true')).toEqual(['del_april_pending in webhook_attempts_p2040_04']);
  });

  it('a year on, the audit log’s months go as the outbox’s did; the pending delivery done, its month goes too', async () => {
    // The audit log (365 days) keeps all of it for now.
    expect((await rowsOf('audit_entries', 'id', `action = 'x.test'`)).length).toBe(4);

    // A year on: the cut-off is 2040-04-17. March is dropped whole; April's entry, older
    // than the cut-off, is deleted from its month, which stays as it ends after the cut-off; May's stays.
    clock.set('2041-04-17T12:00:00.000Z');
    const [{ expired }]: { expired: number }[] = await db.query(
      `SELECT count(*)::int AS expired FROM audit_entries WHERE occurred_at < '2040-04-17T12:00:00Z'`,
    );
    expect(expired).toBeGreaterThanOrEqual(2); // March's (the sign-up's among them) and April's test entry
    const later = await t.app.get(PeriodicJobs).runOnce();
    expect(later['audit-retention']).toBe(expired);
    const audits = await partitionsOf('audit_entries');
    expect(audits).not.toContain('audit_entries_p2040_03');
    expect(audits).toEqual(
      expect.arrayContaining([
        'audit_entries_p2040_04',
        'audit_entries_p2040_05',
        'audit_entries_p2041_04',
        'audit_entries_p2041_05',
        'audit_entries_p2041_06',
      ]),
    );
    expect(await rowsOf('audit_entries', 'id', `action = 'x.test'`)).toEqual([
      'aud_may in audit_entries_p2040_05',
      'aud_september in audit_entries_p2040_09',
    ]);

    // Once the pending delivery is done, April's attempts go whole with their month.
    await db.query(`UPDATE webhook_deliveries SET status = 'succeeded' WHERE id = 'del_april_pending'`);
    await t.app.get(PeriodicJobs).runOnce();
    expect(await partitionsOf('webhook_attempts')).not.toContain('webhook_attempts_p2040_04');
    expect(await rowsOf('webhook_deliveries', 'id', `organization_id = '${org}'`)).toEqual([]);
  });

  it('writes at any time: a month the jobs have not made yet goes to DEFAULT, never fails', async () => {
    await audit('aud_far', '2045-01-01T00:00:00Z');
    await event('evt_far', '2045-01-01T00:00:00Z', false);
    expect(await rowsOf('audit_entries', 'id', `id = 'aud_far'`)).toEqual(['aud_far in audit_entries_default']);
    expect(await rowsOf('domain_events', 'id', `id = 'evt_far'`)).toEqual(['evt_far in domain_events_default']);
  });

  it('two instances running the same round at once: each change is made once, neither round fails', async () => {
    clock.set('2041-08-15T12:00:00.000Z');
    const jobs = t.app.get(PeriodicJobs);
    // Made twice, a partition would fail the second round (the table exists): each change checks under the table's
    // advisory lock. One may instead wait past its lock timeout behind the other round's retention deletes (a busy
    // machine): it is left for the next round, as on any instance.
    await Promise.all([jobs.runOnce(), jobs.runOnce()]);
    await jobs.runOnce();
    const audits = await partitionsOf('audit_entries');
    expect(audits).toEqual(expect.arrayContaining(['audit_entries_p2041_08', 'audit_entries_p2041_09', 'audit_entries_p2041_10']));
    expect(audits).not.toContain('audit_entries_p2040_05'); // ended 2040-06-01, before the cut-off 2040-08-15
  });

  /** June 2043's audit partition: its name, its ATTACH, and the audit rows of `org` for the month. */
  const juneOf2043 = {
    name: 'audit_entries_p2043_06',
    attach: `ALTER TABLE audit_entries ATTACH PARTITION audit_entries_p2043_06 FOR VALUES FROM ('2043-06-01Z') TO ('2043-07-01Z')`,
    rows: (): Promise<string[]> =>
      rowsOf('audit_entries', 'action', `organization_id = '${org}' AND occurred_at >= '2043-06-01Z' AND occurred_at < '2043-07-01Z'`),
  };
  const june = '/v1/availability/overrides?startDate=2043-06-01&endDate=2043-06-30';

  /**
   * Holds the monthly job's transaction open at the point of its ATTACH, with the locks MonthlyPartitions takes for a
   * month that has begun (`begun`) or one ahead, sends `request` into it, waits until the request waits on `table`'s
   * lock, then commits; returns the request's answer.
   */
  async function duringAttach(begun: boolean, waitsOn: string, request: () => Promise<any>): Promise<any> {
    const job = new pg.Client({ connectionString: t.databaseUrl });
    await job.connect();
    try {
      await job.query('BEGIN');
      for (const lock of monthAttachLocks('audit_entries', 'audit_entries_default', begun)) await job.query(lock);
      await job.query(`CREATE TABLE ${juneOf2043.name} (LIKE audit_entries INCLUDING DEFAULTS)`);
      await job.query(juneOf2043.attach);
      const answer = request();
      const waiting = async (): Promise<boolean> => {
        const [{ n }]: { n: number }[] = (
          await job.query(`SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted AND relation = $1::regclass`, [waitsOn])
        ).rows;
        return n > 0;
      };
      for (let i = 0; i < 500 && !(await waiting()); i++) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(await waiting()).toBe(true);
      await job.query('COMMIT');
      return await answer;
    } finally {
      await job.end();
    }
  }
  const override = (): Promise<any> => t.http.post('/v1/availability/overrides', { date: '2043-06-20', type: 'unavailable' }, { apiKey });

  it('a write racing the attach of a month that has begun waits for it, then lands in the new month', async () => {
    // The month has no partition yet (the jobs did not run in it): the job's round attaches it while a request writes
    // its audit entry for it. The job holds the table's writes for that instant, so the write waits at the parent and,
    // the month attached, goes to the new partition: not to DEFAULT, where the attach would refuse it.
    // (Not a change of the organization: attaching adds the partition's foreign key, which holds organizations' writes.)
    clock.set('2043-06-15T12:00:00.000Z');
    const created = await duringAttach(true, 'audit_entries', override);
    expect(created.status).toBe(201);
    expect((await t.http.get(june, { apiKey })).body.overrides).toHaveLength(1);
    expect(await juneOf2043.rows()).toEqual([`override.created in ${juneOf2043.name}`]);
    await db.query(`DROP TABLE ${juneOf2043.name}`); // for the next test, which attaches June again
    await db.query(`DELETE FROM date_overrides WHERE organization_id = $1`, [org]);
  });

  it('a write DEFAULT took while its month was attached as one ahead (a clock a month behind) answers 503 with Retry-After and leaves nothing; sent again, it lands', async () => {
    // PostgreSQL picks the DEFAULT partition for the audit entry of a month not attached yet, then waits for the
    // monthly job's lock on DEFAULT and, the month attached, refuses the row (23514, isPartitionAttachRace). The job of
    // an instance whose clock is still in May makes June as a month ahead, with reads and writes going on.
    clock.set('2043-06-15T12:00:00.000Z');
    const refused = await duringAttach(false, 'audit_entries_default', override);
    expect(refused.status).toBe(503);
    expect(refused.body.code).toBe('SERVICE_UNAVAILABLE');
    expect(refused.headers.get('retry-after')).toBe('1');
    expect((await t.http.get(june, { apiKey })).body.overrides).toEqual([]);
    expect(await juneOf2043.rows()).toEqual([]);

    const again = await override();
    expect(again.status).toBe(201);
    expect((await t.http.get(june, { apiKey })).body.overrides).toHaveLength(1);
    expect(await juneOf2043.rows()).toEqual([`override.created in ${juneOf2043.name}`]);
  });
  it('the job attaches a month that has begun only with the table’s writes held: an open write keeps it for a later round, months ahead are made meanwhile', async () => {
    // A request's transaction that wrote to the audit log (into June 2043's partition) and has not committed: it holds
    // the table against a begun month's attach (MonthlyPartitions gives up after its lock timeout), not against the
    // attach of a month ahead.
    clock.set('2044-02-10T12:00:00.000Z');
    const writer = new pg.Client({ connectionString: t.databaseUrl });
    await writer.connect();
    const jobs = t.app.get(PeriodicJobs);
    try {
      await writer.query('BEGIN');
      await writer.query(
        `INSERT INTO audit_entries (id, organization_id, occurred_at, action, actor_type, resource_type)
         VALUES ('aud_open', $1, '2043-06-10T00:00:00Z', 'x.test', 'system', 'x')`,
        [org],
      );
      await jobs.runOnce();
      const meanwhile = await partitionsOf('audit_entries');
      expect(meanwhile).toEqual(expect.arrayContaining(['audit_entries_p2044_03', 'audit_entries_p2044_04']));
      expect(meanwhile).not.toContain('audit_entries_p2044_02');
      await writer.query('COMMIT');
    } finally {
      await writer.end();
    }
    await jobs.runOnce();
    expect(await partitionsOf('audit_entries')).toContain('audit_entries_p2044_02');
  });
});
