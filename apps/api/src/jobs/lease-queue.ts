import { randomInt } from 'node:crypto';
import { isConcurrencyFailure, isDatabaseUnavailable, postgresError } from '@app/common';
import { TransactionHost } from '@app/database';

/** Lost claims a queue remembers until the database answers again (more are unlikely between two rounds). */
const MAX_LOST_CLAIMS = 16;
/** Seconds either side of a lost claim's lease end (this process's clock against the database's, rounding). */
const LOST_CLAIM_MARGIN_S = 1;

/** Set-backs a queue remembers until the database answers again. */
const MAX_SET_BACKS = 256;
/** How long a job set back by an outage waits before it may be claimed again (its lease, not its due time, moves). */
export const SET_BACK_SECONDS = 5;

/**
 * The database, not the job, failed: class 08, 57P01..57P03, 25006 and the other answers of a database that is gone,
 * restarting or a standby (isDatabaseUnavailable), and the concurrency failures (40001, 40P01, a partition attached
 * under its insert: isConcurrencyFailure) that the job's transaction still met (its retries, if
 * any, are spent). Such an attempt is never counted (section 19): an outage does not park events, mails or reminders.
 * A statement of the job's own that ran past the statement timeout (57014) or gave up a lock wait (55P03) is the job's:
 * it counts, so a job that can never finish in time is parked rather than tried for ever.
 */
export function isOutageError(error: unknown): boolean {
  const code = postgresError(error)?.code;
  if (code === '57014' || code === '55P03') return false;
  return isConcurrencyFailure(error) || isDatabaseUnavailable(error);
}

/** A claim that failed: its tag, its lease, and when it was sent and failed (performance.now()). */
interface LostClaim {
  tag: number;
  leaseSeconds: number;
  sentAt: number;
  failedAt: number;
}

/**
 * How one table works as a queue. Its rows have `id` and `locked_until`, with an index on the due column (partial on
 * `waiting` where it can be) and a partial index on `locked_until` of leased rows (`WHERE locked_until IS NOT NULL`),
 * which the next wake-up reads. SQL fragments name the candidate row `c` (and whatever `join` adds), and RETURNING
 * names the leased row `q` and the candidates' query `due`.
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
  /**
   * The due column is on the service's Clock, not the database's (a reminder is due at its booking's start minus its
   * minutes, and tests move the Clock): `claim` and `msUntilNextDue` then take that now; leases stay on the database's.
   * Its `waiting` names `c` alone (the next wake-up reads the table without the join).
   */
  dueOnClock?: boolean;
}

/** The schedule's delay after `attempts` attempts, or null when it is spent (the job has failed for good). */
export function nextRetrySeconds(schedule: readonly number[], attempts: number): number | null {
  return schedule[attempts - 1] ?? null;
}

/**
 * Which claim an outcome answers: the row and the lease its claim gave it, as a token: the lease's end to the
 * microsecond. No later claim repeats it: a row is claimed again once its lease has run out (and the new one ends
 * later) or once its worker has answered. An outcome whose lease is no longer the row's changes nothing.
 */
export interface Claim {
  id: string;
  lease: string;
}

/** A claimed row, with its claim's lease. */
export type Claimed<Row> = Row & { lease: string };

/**
 * The lease of `row` as a token (see Claim), the same expression where a claim returns it and where an outcome checks
 * it; a queue that writes its own outcomes (reminders, in the transaction of their mails) fences with it too.
 */
export const leaseOf = (row: string): string => `(extract(epoch FROM ${row}.locked_until) * 1000000)::bigint::text`;

/**
 * The one lease queue every background queue runs on (mail, webhook deliveries, calendar syncs, calendar writes);
 * each keeps its own table, rules and outcomes. A claim is one statement outside any transaction: it leases up to
 * `limit` due rows (`FOR UPDATE SKIP LOCKED`, so instances claim side by side without waiting on each other) until
 * `now() + lease`; the lease, not the row lock, keeps other workers away while the job runs, and a killed worker's
 * leases simply run out. Every outcome names its claim (Claim) and is written only while the row's lease is still
 * that claim's: a worker whose lease ran out and whose row someone else claimed finishes late for nothing. Every time
 * is the database's now(): tests freeze the Clock, and instances must agree.
 *
 * A claim whose answer is lost (the primary fails over as it commits) may have leased rows that no worker holds. Each
 * claim therefore marks its leases with a random tag of its own, their end's microseconds (the end moves back by less
 * than a second to carry it); a claim that fails is remembered, and the next claim, once the database answers, first frees the
 * rows still leased under its tag, handing back the attempt it counted. Without it those rows would wait out a whole
 * lease (five minutes for mail) after every failover that cut a claim's answer.
 */
export class LeaseQueue<Row> {
  private readonly claimSql: string;
  private readonly nextDueSql: string;
  private readonly releaseLostSql: string;
  /** Claims that failed: whether they leased rows is unknown until the next claim frees them. */
  private lost: LostClaim[] = [];
  private readonly setBackSql: string;
  /** Set-backs whose write failed too (the database was still away): the next claim writes them. */
  private setBacks: Claim[] = [];

  constructor(
    private readonly tx: TransactionHost,
    private readonly queue: LeaseQueueTable,
  ) {
    const { table, waiting, dueColumn, join = '', claimable, carry, order, countsAttempts, onClaim, returning, dueOnClock } = queue;
    const dueNow = dueOnClock ? '$4::timestamptz' : 'now()';
    const free = `(c.locked_until IS NULL OR c.locked_until <= now())`;
    // The lease ends within the second before now() + lease ($2), on the microsecond that is the claim's tag ($3).
    const end = `now() + make_interval(secs => CAST($2 AS double precision))`;
    const tagged = `date_trunc('second', ${end}) + CAST($3 AS integer) * interval '1 microsecond'`;
    const set = [
      `locked_until = CASE WHEN ${tagged} <= ${end} THEN ${tagged} ELSE ${tagged} - interval '1 second' END`,
      ...(countsAttempts ? ['attempts = q.attempts + 1'] : []),
      ...(onClaim ? [onClaim] : []),
    ];
    this.claimSql = `UPDATE ${table} q SET ${set.join(', ')}
      FROM (SELECT c.id${carry ? `, ${carry}` : ''} FROM ${table} c ${join}
             WHERE ${waiting} AND c.${dueColumn} <= ${dueNow} AND ${free}${claimable ? ` AND ${claimable}` : ''}
             ORDER BY ${order} LIMIT $1 FOR UPDATE OF c SKIP LOCKED) due
     WHERE q.id = due.id
     RETURNING ${returning}, ${leaseOf('q')} AS lease`;
    // Rows still leased by one of the lost claims (through the partial index of leased rows), their attempt handed back:
    // the claim's tag, and a lease end within the seconds around the one that claim gave (`lo` < end - now() <= `hi`),
    // so a live claim of another worker with the same tag (one in a million) is freed only if it was made then too.
    this.releaseLostSql = `UPDATE ${table} c SET locked_until = NULL${countsAttempts ? ', attempts = greatest(c.attempts - 1, 0)' : ''}
      FROM unnest($1::integer[], $2::float8[], $3::float8[]) AS l(tag, lo, hi)
      WHERE c.locked_until IS NOT NULL AND c.locked_until > now()
        AND mod((extract(epoch FROM c.locked_until) * 1000000)::bigint, 1000000)::integer = l.tag
        AND c.locked_until > now() + make_interval(secs => l.lo) AND c.locked_until <= now() + make_interval(secs => l.hi)`;
    // A set-back hands the claim's attempt back and leases the row to nobody for SET_BACK_SECONDS: its due time stays.
    this.setBackSql = `UPDATE ${table} c SET locked_until = now() + make_interval(secs => ${SET_BACK_SECONDS})${countsAttempts ? ', attempts = greatest(c.attempts - 1, 0)' : ''}
      FROM unnest($1::text[], $2::text[]) AS k(id, lease)
      WHERE c.id = k.id AND ${leaseOf('c')} = k.lease AND ${waiting}`;
    // A waiting row may be claimed at the later of its due time and its lease's end. Two lookups, each by an index
    // whatever the number of waiting rows: the first row by due time whose lease (if any) ends before it is due (the
    // due index, past the few rows leased now), and the earliest lease that ends after its row is due (a partial index
    // of leased rows).
    this.nextDueSql = dueOnClock
      ? // Two clocks: the first free row by due time against the Clock's now ($1), the earliest lease against the
        // database's. Without the join (its `waiting` names `c` alone): the join only carries columns to a claim.
        `SELECT (extract(epoch FROM least(
        (SELECT c.${dueColumn} - $1::timestamptz FROM ${table} c
          WHERE ${waiting} AND c.locked_until IS NULL ORDER BY c.${dueColumn} LIMIT 1),
        (SELECT min(c.locked_until) - now() FROM ${table} c WHERE c.locked_until IS NOT NULL AND ${waiting})
      )) * 1000)::float8 AS ms`
      : `SELECT (extract(epoch FROM least(
        (SELECT c.${dueColumn} FROM ${table} c ${join}
          WHERE ${waiting} AND (c.locked_until IS NULL OR c.locked_until <= c.${dueColumn})
          ORDER BY c.${dueColumn} LIMIT 1),
        (SELECT min(c.locked_until) FROM ${table} c ${join}
          WHERE c.locked_until IS NOT NULL AND ${waiting} AND c.locked_until > c.${dueColumn})
      ) - now()) * 1000)::float8 AS ms`;
  }

  /**
   * Leases up to `limit` due rows for `leaseSeconds`, the oldest first, each with its claim's lease. `now`: the Clock's,
   * for a queue due on it (dueOnClock).
   */
  async claim(limit: number, leaseSeconds: number, now?: Date): Promise<Claimed<Row>[]> {
    if (this.lost.length > 0) await this.releaseLost();
    if (this.setBacks.length > 0) await this.writeSetBacks(this.setBacks);
    const tag = randomInt(1, 1_000_000);
    const sentAt = performance.now();
    try {
      // TypeORM answers an UPDATE … RETURNING with [rows, affected].
      const [rows]: [Claimed<Row>[], number] = await this.tx
        .outside('a claim commits at once, so other workers skip what it took')
        .query(this.claimSql, [limit, leaseSeconds, tag, ...this.clockNow(now)]);
      return rows;
    } catch (error) {
      // Committed or not: unknown when the connection went with the answer. The next claim frees what it leased.
      this.lost = [...this.lost, { tag, leaseSeconds, sentAt, failedAt: performance.now() }].slice(-MAX_LOST_CLAIMS);
      throw error;
    }
  }

  /** Frees the rows the lost claims leased (none, when they did not commit); kept for the next claim if this fails too. */
  private async releaseLost(): Promise<void> {
    const lost = this.lost;
    // The lost claim's now() was between sentAt and failedAt, its lease end within the second before now() + lease.
    const now = performance.now();
    const lo = lost.map((claim) => claim.leaseSeconds - 1 - (now - claim.sentAt) / 1000 - LOST_CLAIM_MARGIN_S);
    const hi = lost.map((claim) => claim.leaseSeconds - (now - claim.failedAt) / 1000 + LOST_CLAIM_MARGIN_S);
    await this.tx
      .outside('freeing the leases of claims whose answer was lost')
      .query(this.releaseLostSql, [lost.map((claim) => claim.tag), lo, hi]);
    this.lost = this.lost.filter((claim) => !lost.includes(claim));
  }

  /**
   * A job's run failed. When the database was unavailable (isOutageError), the attempt was not the job's: its claim's
   * attempt is handed back and it may be claimed again after SET_BACK_SECONDS, whatever its retry schedule says; when
   * that write fails too, the next claim writes it. True then, and the caller writes no outcome of its own; false for
   * the job's own failures, which the caller counts (retry or park).
   */
  async setBack(claim: Claim, error: unknown): Promise<boolean> {
    if (!isOutageError(error)) return false;
    await this.writeSetBacks([{ id: claim.id, lease: claim.lease }]).catch(() => undefined);
    return true;
  }

  private async writeSetBacks(claims: readonly Claim[]): Promise<void> {
    try {
      await this.tx
        .outside('a set-back is written after its job’s transaction failed')
        .query(this.setBackSql, [claims.map((claim) => claim.id), claims.map((claim) => claim.lease)]);
      this.setBacks = this.setBacks.filter((kept) => !claims.some((claim) => claim.id === kept.id && claim.lease === kept.lease));
    } catch (error) {
      const known = new Set(this.setBacks.map((kept) => `${kept.id} ${kept.lease}`));
      const added = claims.filter((claim) => !known.has(`${claim.id} ${claim.lease}`));
      this.setBacks = [...this.setBacks, ...added].slice(-MAX_SET_BACKS);
      throw error;
    }
  }

  /**
   * Milliseconds until a waiting row may be claimed (0 when one is due), or null when none waits: the loop's next
   * wake-up. `now`: the Clock's, for a queue due on it (dueOnClock).
   */
  async msUntilNextDue(now?: Date): Promise<number | null> {
    const rows: { ms: number | null }[] = await this.tx
      .outside('the worker’s next wake-up, read between claims')
      .query(this.nextDueSql, this.clockNow(now));
    // least() skips NULLs in PostgreSQL, so clamping happens here: no row must mean null, not 0.
    const ms = rows[0]?.ms ?? null;
    return ms === null ? null : Math.max(0, ms);
  }

  /** The lease ends and the row stays as it is (a sync that recorded its own next time). False when the claim is stale. */
  async release(claim: Claim): Promise<boolean> {
    return this.outcome(`UPDATE ${this.queue.table} c SET locked_until = NULL WHERE id = $1 AND ${leaseOf('c')} = $2`, [
      claim.id,
      claim.lease,
    ]);
  }

  /**
   * The job waits `delaySeconds` and runs again. `refund` takes back the attempt its claim counted (it was not the
   * job's fault: an unreadable secret waits for its key). False when the claim is stale.
   */
  async retry(claim: Claim, delaySeconds: number, error: string, options: { refund?: boolean } = {}): Promise<boolean> {
    const { table, dueColumn } = this.queue;
    const refund = options.refund ? ', attempts = greatest(attempts - 1, 0)' : '';
    return this.outcome(
      `UPDATE ${table} c SET locked_until = NULL, ${this.errorColumn()} = $4, ${dueColumn} = now() + make_interval(secs => CAST($3 AS double precision))${refund}
          WHERE id = $1 AND ${leaseOf('c')} = $2 AND ${this.queue.waiting}`,
      [claim.id, claim.lease, delaySeconds, error],
    );
  }

  /** The job leaves the queue: `status` (done, sent, failed), with its error if any, and the lease ends. False when the claim is stale. */
  async finish(claim: Claim, status: string, error: string | null = null, also = ''): Promise<boolean> {
    return this.outcome(
      `UPDATE ${this.queue.table} c SET status = $3, locked_until = NULL, ${this.errorColumn()} = $4${also ? `, ${also}` : ''}
          WHERE id = $1 AND ${leaseOf('c')} = $2 AND ${this.queue.waiting}`,
      [claim.id, claim.lease, status, error],
    );
  }

  /** Several jobs leave the queue with one `status` and no error, in one statement (a batch's successes); how many did. */
  async finishMany(claims: readonly Claim[], status: string, also = ''): Promise<number> {
    if (claims.length === 0) return 0;
    const [, count]: [unknown[], number] = await this.tx.outside(OUTCOME).query(
      `UPDATE ${this.queue.table} c SET status = $3, locked_until = NULL, ${this.errorColumn()} = NULL${also ? `, ${also}` : ''}
         FROM unnest($1::text[], $2::text[]) AS k(id, lease)
        WHERE c.id = k.id AND ${leaseOf('c')} = k.lease AND ${this.queue.waiting}`,
      [claims.map((claim) => claim.id), claims.map((claim) => claim.lease), status],
    );
    return count ?? 0;
  }

  private clockNow(now: Date | undefined): Date[] {
    if (!this.queue.dueOnClock) return [];
    if (!now) throw new Error(`${this.queue.table}: a queue due on the Clock needs its now`);
    return [now];
  }

  private async outcome(text: string, values: unknown[]): Promise<boolean> {
    const [, count]: [unknown[], number] = await this.tx.outside(OUTCOME).query(text, values);
    return count > 0;
  }

  /** retry and finish address one row of the table alone: a queue that joins (webhooks) writes its own outcomes. */
  private errorColumn(): string {
    if (!this.queue.errorColumn || this.queue.join)
      throw new Error(`${this.queue.table}: retry and finish need an error column and a queue without a join`);
    return this.queue.errorColumn;
  }
}

const OUTCOME = 'a job’s outcome is written after its work, on its own';
