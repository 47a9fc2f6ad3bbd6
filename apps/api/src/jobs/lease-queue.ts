import { TransactionHost } from '@app/database';

/**
 * How one table works as a queue. Its rows have `id` and `locked_until`; SQL fragments name the candidate
 * row `c` (and whatever `join` adds), and RETURNING names the leased row `q` and the candidates' query `due`.
 */
export interface LeaseQueueTable {
  table: string;
  /** Rows still in the queue, due or not, e.g. `c.status = 'pending'`. */
  waiting: string;
  /** The column that says when a waiting row is due. */
  dueColumn: string;
  /** Joined to the candidates, e.g. `JOIN webhooks w ON w.id = c.webhook_id` (its conditions go in `waiting`). */
  join?: string;
  /** Conditions only a claim checks, e.g. that no earlier job of the same booking is waiting. */
  claimable?: string;
  /** Columns of the join carried to RETURNING as `due.<name>`. */
  carry?: string;
  /** Claims take the oldest first by this. */
  order: string;
  /** A claim counts the attempt (attempts + 1), so a job that crashes its worker still runs out of retries. */
  countsAttempts: boolean;
  /** More columns a claim sets, e.g. `last_attempt_at = now()`. */
  onClaim?: string;
  /** What a claim answers, e.g. `q.id` or `q.*, due.url`. */
  returning: string;
  /** Where a retry writes its error (with `retry` and `finish`). */
  errorColumn?: string;
}

/** The schedule's delay after `attempts` attempts, or null when it is spent (the job has failed for good). */
export function nextRetrySeconds(schedule: readonly number[], attempts: number): number | null {
  return schedule[attempts - 1] ?? null;
}

/**
 * The one lease queue every background queue runs on (mail, webhook deliveries, calendar syncs, calendar writes);
 * each keeps its own table, rules and outcomes. A claim is one statement outside any transaction: it leases up to
 * `limit` due rows (`FOR UPDATE SKIP LOCKED`, so instances claim side by side without waiting on each other) until
 * `now() + lease`; the lease, not the row lock, keeps other workers away while the job runs, and a killed worker's
 * leases simply run out. Every time is the database's now(): tests freeze the Clock, and instances must agree.
 */
export class LeaseQueue<Row> {
  private readonly claimSql: string;
  private readonly nextDueSql: string;

  constructor(
    private readonly tx: TransactionHost,
    private readonly queue: LeaseQueueTable,
  ) {
    const { table, waiting, dueColumn, join = '', claimable, carry, order, countsAttempts, onClaim, returning } = queue;
    const free = `(c.locked_until IS NULL OR c.locked_until <= now())`;
    const set = [
      `locked_until = now() + make_interval(secs => CAST($2 AS double precision))`,
      ...(countsAttempts ? ['attempts = q.attempts + 1'] : []),
      ...(onClaim ? [onClaim] : []),
    ];
    this.claimSql = `UPDATE ${table} q SET ${set.join(', ')}
      FROM (SELECT c.id${carry ? `, ${carry}` : ''} FROM ${table} c ${join}
             WHERE ${waiting} AND c.${dueColumn} <= now() AND ${free}${claimable ? ` AND ${claimable}` : ''}
             ORDER BY ${order} LIMIT $1 FOR UPDATE OF c SKIP LOCKED) due
     WHERE q.id = due.id
     RETURNING ${returning}`;
    // A leased row is due again when its lease ends, or later if its retry says so.
    this.nextDueSql = `SELECT (extract(epoch FROM min(greatest(c.${dueColumn}, coalesce(c.locked_until, c.${dueColumn}))) - now()) * 1000)::float8 AS ms
      FROM ${table} c ${join} WHERE ${waiting}`;
  }

  /** Leases up to `limit` due rows for `leaseSeconds`, the oldest first. */
  async claim(limit: number, leaseSeconds: number): Promise<Row[]> {
    // TypeORM answers an UPDATE … RETURNING with [rows, affected].
    const [rows]: [Row[], number] = await this.tx
      .outside('a claim commits at once, so other workers skip what it took')
      .query(this.claimSql, [limit, leaseSeconds]);
    return rows;
  }

  /** Milliseconds until a waiting row may be claimed (0 when one is due), or null when none waits: the loop's next wake-up. */
  async msUntilNextDue(): Promise<number | null> {
    const rows: { ms: number | null }[] = await this.tx.outside('the worker’s next wake-up, read between claims').query(this.nextDueSql);
    // greatest() skips NULLs in PostgreSQL, so clamping happens here: no row must mean null, not 0.
    const ms = rows[0]?.ms ?? null;
    return ms === null ? null : Math.max(0, ms);
  }

  /** The lease ends and the row stays as it is (a sync that recorded its own next time). */
  async release(id: string): Promise<void> {
    await this.tx.outside(OUTCOME).query(`UPDATE ${this.queue.table} SET locked_until = NULL WHERE id = $1`, [id]);
  }

  /**
   * The job waits `delaySeconds` and runs again. `refund` takes back the attempt its claim counted (it was not the
   * job's fault: an unreadable secret waits for its key).
   */
  async retry(id: string, delaySeconds: number, error: string, options: { refund?: boolean } = {}): Promise<void> {
    const { table, dueColumn } = this.queue;
    const refund = options.refund ? ', attempts = greatest(attempts - 1, 0)' : '';
    await this.tx.outside(OUTCOME).query(
      `UPDATE ${table} c SET locked_until = NULL, ${this.errorColumn()} = $3, ${dueColumn} = now() + make_interval(secs => CAST($2 AS double precision))${refund}
          WHERE id = $1 AND ${this.queue.waiting}`,
      [id, delaySeconds, error],
    );
  }

  /** The job leaves the queue: `status` (done, sent, failed), with its error if any, and the lease ends. */
  async finish(id: string, status: string, error: string | null = null, also = ''): Promise<void> {
    await this.tx.outside(OUTCOME).query(
      `UPDATE ${this.queue.table} c SET status = $2, locked_until = NULL, ${this.errorColumn()} = $3${also ? `, ${also}` : ''}
          WHERE id = $1 AND ${this.queue.waiting}`,
      [id, status, error],
    );
  }

  /** Several jobs leave the queue with one `status` and no error, in one statement (a batch's successes). */
  async finishMany(ids: readonly string[], status: string, also = ''): Promise<void> {
    if (ids.length === 0) return;
    await this.tx.outside(OUTCOME).query(
      `UPDATE ${this.queue.table} c SET status = $2, locked_until = NULL, ${this.errorColumn()} = NULL${also ? `, ${also}` : ''}
          WHERE id = ANY($1::text[]) AND ${this.queue.waiting}`,
      [[...ids], status],
    );
  }

  /** retry and finish address one row of the table alone: a queue that joins (webhooks) writes its own outcomes. */
  private errorColumn(): string {
    if (!this.queue.errorColumn || this.queue.join)
      throw new Error(`${this.queue.table}: retry and finish need an error column and a queue without a join`);
    return this.queue.errorColumn;
  }
}

const OUTCOME = 'a job’s outcome is written after its work, on its own';
