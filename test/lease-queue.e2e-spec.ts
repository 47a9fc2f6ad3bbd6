import { DataSource, type EntityManager } from 'typeorm';
import { TransactionHost } from '@app/database';
import { type Claim, type Claimed, LeaseQueue } from '../apps/api/src/jobs/index.js';
import { cloneTestDatabase } from './support/database.js';

interface Job {
  id: string;
  attempts: number;
}

/** The lease queue every background queue runs on, against a table of its own in a real database. */
describe('LeaseQueue', () => {
  let database: { url: string; drop(): Promise<void> };
  let dataSource: DataSource;
  let queue: LeaseQueue<Job>;
  let ordered: LeaseQueue<Job>;
  let losing: LosingAnswers;
  let failing: LeaseQueue<Job>;

  beforeAll(async () => {
    database = await cloneTestDatabase();
    dataSource = await new DataSource({ type: 'postgres', url: database.url, poolSize: 10 }).initialize();
    await dataSource.query(`CREATE TABLE q_jobs (
      id text PRIMARY KEY, grp text NOT NULL DEFAULT '', status text NOT NULL DEFAULT 'pending',
      attempts int NOT NULL DEFAULT 0, next_attempt_at timestamptz NOT NULL DEFAULT now(), locked_until timestamptz,
      last_error text, finished_at timestamptz, created_at timestamptz NOT NULL DEFAULT now())`);
    const tx = new TransactionHost(dataSource);
    const table = {
      table: 'q_jobs',
      waiting: `c.status = 'pending'`,
      dueColumn: 'next_attempt_at',
      order: 'c.next_attempt_at, c.id',
      countsAttempts: true,
      returning: 'q.id, q.attempts',
      errorColumn: 'last_error',
    };
    queue = new LeaseQueue(tx, table);
    losing = new LosingAnswers(dataSource);
    failing = new LeaseQueue(losing, table);
    ordered = new LeaseQueue(tx, {
      ...table,
      claimable: `NOT EXISTS (SELECT 1 FROM q_jobs e WHERE e.grp = c.grp AND e.status = 'pending' AND e.id < c.id)`,
      order: 'c.id',
    });
  });
  afterAll(async () => {
    await dataSource.destroy();
    await database.drop();
  });
  beforeEach(() => dataSource.query('TRUNCATE q_jobs'));

  /** What a claim answered, without the leases (each claim's own). */
  const jobs = (claimed: Claimed<Job>[]): Job[] => claimed.map(({ id, attempts }) => ({ id, attempts }));
  /** The claim of row `id` among `claimed`. */
  const claimOf = (claimed: Claimed<Job>[], id: string): Claim => claimed.find((job) => job.id === id)!;

  /** Rows due `minutesAgo` minutes ago (negative: in the future). */
  const add = (rows: [id: string, minutesAgo: number, grp?: string][]): Promise<unknown> =>
    dataSource.query(
      `INSERT INTO q_jobs (id, next_attempt_at, grp) SELECT id, now() - make_interval(mins => m), g
         FROM unnest($1::text[], $2::int[], $3::text[]) AS r(id, m, g)`,
      [rows.map((r) => r[0]), rows.map((r) => r[1]), rows.map((r) => r[2] ?? '')],
    );
  const row = async (id: string): Promise<{ status: string; attempts: number; last_error: string | null; leased: boolean; in_s: number }> =>
    (
      await dataSource.query(
        `SELECT status, attempts, last_error, locked_until > now() AS leased, extract(epoch FROM next_attempt_at - now())::float8 AS in_s
           FROM q_jobs WHERE id = $1`,
        [id],
      )
    )[0];

  it('claims due rows only, the oldest first, up to the limit, counting the attempt and leasing them', async () => {
    await add([
      ['a', 5],
      ['b', 4],
      ['c', 3],
      ['d', 2],
      ['later', -10],
    ]);
    expect(jobs(await queue.claim(3, 30))).toEqual([
      { id: 'a', attempts: 1 },
      { id: 'b', attempts: 1 },
      { id: 'c', attempts: 1 },
    ]);
    expect(await row('a')).toMatchObject({ attempts: 1, leased: true });
    expect(jobs(await queue.claim(10, 30))).toEqual([{ id: 'd', attempts: 1 }]);
    expect(await queue.claim(10, 30)).toEqual([]);
  });

  it('gives each row to one of many claims running at once (SKIP LOCKED), and every due row to some claim', async () => {
    await add(Array.from({ length: 200 }, (_, i): [string, number] => [`j${String(i).padStart(3, '0')}`, 1]));
    const claims = await Promise.all(Array.from({ length: 10 }, () => queue.claim(25, 30)));
    const ids = claims.flat().map((job) => job.id);
    expect(new Set(ids).size).toBe(ids.length);
    const rest = await queue.claim(200, 30);
    expect(ids.length + rest.length).toBe(200);
  });

  it('claims a row again once its lease has run out (a killed worker loses nothing), counting a second attempt', async () => {
    await add([['a', 1]]);
    await queue.claim(1, 30);
    expect(await queue.claim(1, 30)).toEqual([]);
    await dataSource.query(`UPDATE q_jobs SET locked_until = now() - interval '1 second'`);
    expect(jobs(await queue.claim(1, 30))).toEqual([{ id: 'a', attempts: 2 }]);
  });

  it('says when to wake: null with nothing waiting, 0 when due, the end of a lease or of a retry delay otherwise', async () => {
    expect(await queue.msUntilNextDue()).toBeNull();
    await add([['a', 1]]);
    expect(await queue.msUntilNextDue()).toBe(0);
    const [a] = await queue.claim(1, 60);
    const leased = (await queue.msUntilNextDue())!;
    expect(leased).toBeGreaterThan(55_000);
    expect(leased).toBeLessThanOrEqual(60_000);
    await queue.retry(a, 300, 'refused');
    const retried = (await queue.msUntilNextDue())!;
    expect(retried).toBeGreaterThan(295_000);
    expect(retried).toBeLessThanOrEqual(300_000);
    const [again] = await dataSource
      .query(`UPDATE q_jobs SET next_attempt_at = now() - interval '1 minute'`)
      .then(() => queue.claim(1, 60));
    await queue.finish(again, 'done');
    expect(await queue.msUntilNextDue()).toBeNull();
  });

  it('retries after the delay with the error, ending the lease; refund takes back the attempt', async () => {
    await add([
      ['a', 1],
      ['b', 1],
    ]);
    const claimed = await queue.claim(2, 30);
    await queue.retry(claimOf(claimed, 'a'), 120, 'timeout');
    await queue.retry(claimOf(claimed, 'b'), 120, 'no key', { refund: true });
    expect(await row('a')).toMatchObject({ status: 'pending', attempts: 1, last_error: 'timeout', leased: null });
    expect((await row('a')).in_s).toBeGreaterThan(115);
    expect(await row('b')).toMatchObject({ attempts: 0, last_error: 'no key' });
    expect(await queue.claim(2, 30)).toEqual([]);
  });

  it('finishes a waiting row with its status, error and extra columns; a finished row stays as it was', async () => {
    await add([
      ['a', 1],
      ['b', 1],
    ]);
    const claimed = await queue.claim(2, 30);
    expect(await queue.finish(claimOf(claimed, 'a'), 'sent', null, 'finished_at = now()')).toBe(true);
    expect(await queue.finish(claimOf(claimed, 'b'), 'failed', 'refused')).toBe(true);
    expect(await queue.finish(claimOf(claimed, 'b'), 'sent')).toBe(false);
    expect(await row('a')).toMatchObject({ status: 'sent', last_error: null, leased: null });
    expect(await row('b')).toMatchObject({ status: 'failed', last_error: 'refused' });
    expect((await dataSource.query(`SELECT finished_at IS NOT NULL AS f FROM q_jobs WHERE id = 'a'`))[0].f).toBe(true);
  });

  it('release ends a lease and leaves the row as it is', async () => {
    await add([['a', 1]]);
    const [a] = await queue.claim(1, 30);
    expect(await queue.release(a)).toBe(true);
    expect(jobs(await queue.claim(1, 30))).toEqual([{ id: 'a', attempts: 2 }]);
  });

  it('keeps a queue’s own claim rule: a row waits while an earlier one of its group is pending', async () => {
    await add([
      ['1', 1, 'x'],
      ['2', 1, 'x'],
      ['3', 1, 'y'],
    ]);
    const claimed = await ordered.claim(10, 30);
    expect(claimed.map((job) => job.id)).toEqual(['1', '3']);
    await ordered.finish(claimOf(claimed, '1'), 'done');
    expect((await ordered.claim(10, 30)).map((job) => job.id)).toEqual(['2']);
  });

  /*
   * A lease runs on the database's clock (every instance must agree on it, so not the injectable Clock): a lease that
   * runs out mid-job is one whose end is moved into the past, as a worker that stalls past it would see.
   */
  it('ignores the outcomes of a worker whose lease ran out and whose row another worker claimed', async () => {
    await add([
      ['a', 1],
      ['b', 1],
      ['c', 1],
    ]);
    const late = await queue.claim(3, 30);
    await dataSource.query(`UPDATE q_jobs SET locked_until = now() - interval '1 second'`);
    const current = await queue.claim(3, 30);
    expect(jobs(current)).toEqual(['a', 'b', 'c'].map((id) => ({ id, attempts: 2 })));
    // The first worker finishes late: each of its outcomes changes nothing, and says so.
    expect(await queue.finish(claimOf(late, 'a'), 'failed', 'late')).toBe(false);
    expect(await queue.retry(claimOf(late, 'b'), 600, 'late', { refund: true })).toBe(false);
    expect(await queue.release(claimOf(late, 'c'))).toBe(false);
    expect(await queue.finishMany(late, 'sent')).toBe(0);
    for (const id of ['a', 'b', 'c'])
      expect(await row(id)).toMatchObject({ status: 'pending', attempts: 2, last_error: null, leased: true });
    // The worker that holds the leases now is answered.
    expect(await queue.retry(claimOf(current, 'b'), 600, 'refused')).toBe(true);
    expect(await queue.finishMany(current, 'sent')).toBe(2);
    expect(await row('a')).toMatchObject({ status: 'sent', leased: null });
    expect(await row('b')).toMatchObject({ status: 'pending', last_error: 'refused', leased: null });
    // An outcome given twice is given once.
    expect(await queue.release(claimOf(current, 'b'))).toBe(false);
  });

  it('frees the rows of a claim whose answer was lost (a failover as it committed) at its next claim, the attempt handed back', async () => {
    await add([
      ['a', 3],
      ['b', 2],
      ['c', 1],
    ]);
    losing.loseNext = true;
    await expect(failing.claim(1, 300)).rejects.toThrow('Connection terminated unexpectedly');
    // The claim committed: row a is leased for five minutes by a worker that never heard of it.
    expect(await row('a')).toMatchObject({ attempts: 1, leased: true });
    // Another worker's lease is not the lost claim's: it stays.
    const [b] = await queue.claim(1, 300);
    expect(b.id).toBe('b');
    // Nor is a lease with the same tag (its microseconds) that ends 30 s later: another claim, made later.
    await dataSource.query(
      `UPDATE q_jobs SET locked_until = (SELECT locked_until + interval '30 seconds' FROM q_jobs WHERE id = 'a') WHERE id = 'c'`,
    );
    // The next claim of the queue that lost the answer frees a at once and claims it.
    expect(jobs(await failing.claim(5, 300))).toEqual([{ id: 'a', attempts: 1 }]);
    expect(await row('b')).toMatchObject({ attempts: 1, leased: true });
    expect(await row('c')).toMatchObject({ attempts: 0, leased: true });
    expect(await queue.finish(b, 'done')).toBe(true);
  });

  it('a claim that failed before committing frees nothing, and the next claim works as usual', async () => {
    await add([['a', 1]]);
    losing.failNext = true;
    await expect(failing.claim(1, 300)).rejects.toThrow('Connection terminated unexpectedly');
    expect(await row('a')).toMatchObject({ attempts: 0, leased: null });
    const [a] = await queue.claim(1, 300);
    expect(jobs(await failing.claim(1, 300))).toEqual([]);
    expect(await row('a')).toMatchObject({ attempts: 1, leased: true });
    expect(await queue.release(a)).toBe(true);
  });

  it('finds the next wake-up through indexes, with many rows waiting and some leased', async () => {
    await dataSource.query(`CREATE INDEX q_jobs_due ON q_jobs (next_attempt_at) WHERE status = 'pending'`);
    await dataSource.query(`CREATE INDEX q_jobs_leased ON q_jobs (locked_until) WHERE locked_until IS NOT NULL`);
    try {
      // 100,000 waiting in the coming days, 20 due now, of which 10 are claimed.
      await dataSource.query(`INSERT INTO q_jobs (id, next_attempt_at)
        SELECT 'w' || g, now() + make_interval(secs => 60 + g * 5) FROM generate_series(1, 100000) g
        UNION ALL SELECT 'd' || g, now() - make_interval(secs => g) FROM generate_series(1, 20) g`);
      await dataSource.query('ANALYZE q_jobs');
      await queue.claim(10, 120);
      const plan = (await dataSource.query(
        `EXPLAIN (ANALYZE, FORMAT JSON) ${(queue as unknown as { nextDueSql: string }).nextDueSql}`,
      )) as {
        'QUERY PLAN': { Plan: PlanNode }[];
      }[];
      const nodes = flatten(plan[0]['QUERY PLAN'][0].Plan);
      expect(nodes.filter((node) => node['Node Type'] === 'Seq Scan')).toEqual([]);
      expect(nodes.filter((node) => node['Node Type'] === 'Index Scan').map((node) => node['Index Name'])).toEqual(
        expect.arrayContaining(['q_jobs_due', 'q_jobs_leased']),
      );
      // No lookup reads more than the rows leased now and the one it answers with.
      expect(Math.max(...nodes.map((node) => node['Actual Rows'] ?? 0))).toBeLessThanOrEqual(11);
      expect(await queue.msUntilNextDue()).toBe(0);
      // Nothing due: the earliest of the leases' ends (two minutes) and the next due row (a minute).
      await dataSource.query(`DELETE FROM q_jobs WHERE id LIKE 'd%' AND locked_until IS NULL`);
      const ms = (await queue.msUntilNextDue())!;
      expect(ms).toBeGreaterThan(55_000);
      expect(ms).toBeLessThanOrEqual(65_000);
    } finally {
      await dataSource.query('DROP INDEX q_jobs_due; DROP INDEX q_jobs_leased');
    }
  });
});

/**
 * A TransactionHost whose next statement outside a transaction runs and commits, then loses its answer (`loseNext`), or
 * fails before reaching the database (`failNext`): what a claim meets when the primary fails over.
 */
class LosingAnswers extends TransactionHost {
  loseNext = false;
  failNext = false;

  override outside(reason: string): EntityManager {
    const manager = super.outside(reason);
    if (!this.loseNext && !this.failNext) return manager;
    const commits = this.loseNext;
    this.loseNext = this.failNext = false;
    const lost = async (text: string, values?: unknown[]): Promise<never> => {
      if (commits) await manager.query(text, values);
      throw new Error('Connection terminated unexpectedly');
    };
    return { query: lost } as unknown as EntityManager;
  }
}

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Actual Rows'?: number;
  Plans?: PlanNode[];
}

function flatten(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(flatten)];
}
