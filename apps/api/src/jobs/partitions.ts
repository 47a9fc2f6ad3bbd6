import type { Logger } from '@nestjs/common';
import type { TransactionHost } from '@app/database';

/** How many months ahead of the Clock's month partitions are kept ready. */
export const MONTHS_AHEAD = 2;
/** The longest a partition statement waits for its lock (it is tried again on the next round). */
const LOCK_TIMEOUT = '200ms';
const LOCK_NOT_AVAILABLE = '55P03';
/** A partition dropped is counted row by row below this many rows (its estimate otherwise; -1: never analyzed). */
const EXACT_COUNT_BELOW = 100_000;

/** One partition of a table partitioned by month (`<table>_pYYYY_MM`, `<table>_p_legacy`, `<table>_default`). */
export interface Partition {
  name: string;
  /** Null: from the beginning (the legacy partition), or the DEFAULT partition. */
  lower: Date | null;
  /** Null only for the DEFAULT partition. */
  upper: Date | null;
  isDefault: boolean;
}

export interface MonthlyPartitionsOptions {
  /** The partitioned table (an identifier: the owning module's own table name, never input). */
  table: string;
  /** Its partition key, a `timestamptz` column. */
  column: string;
  /**
   * Whether a partition whose whole range is past retention still holds a row that must stay (an event not yet
   * fanned out, the attempts of a delivery still pending): it is then kept and its expired rows go the row-by-row
   * way. Absent: every such partition goes.
   */
  stillNeeded?: (partition: Partition) => Promise<boolean>;
}

/**
 * The monthly partitions of one append-only table (docs/operating/partitions.md), kept by its owner's retention job
 * on the housekeeping loop (PeriodicJobs): `prepare` makes sure the Clock's month and the next MONTHS_AHEAD exist
 * (moving in any rows the DEFAULT partition caught for them), `dropExpired` drops each partition whose whole range is
 * older than the retention cut-off. Each change is one short transaction holding a transaction-scoped advisory lock
 * (a second instance running the same round at once skips it) and `lock_timeout`, so it never queues the table's
 * readers and writers behind a long transaction: it gives up and the next round tries again.
 */
export class MonthlyPartitions {
  constructor(
    private readonly tx: TransactionHost,
    private readonly logger: Logger,
    private readonly options: MonthlyPartitionsOptions,
  ) {}

  /** The table's partitions, from the catalog. */
  async list(): Promise<Partition[]> {
    const rows: { name: string; lower: Date | null; upper: Date | null; is_default: boolean }[] = await this.tx.reads.query(
      `SELECT c.relname AS name, b.bound = 'DEFAULT' AS is_default,
              substring(b.bound FROM 'FROM \\(''([^'']*)''\\)')::timestamptz AS lower,
              substring(b.bound FROM 'TO \\(''([^'']*)''\\)')::timestamptz AS upper
         FROM pg_inherits i
         JOIN pg_class c ON c.oid = i.inhrelid
         CROSS JOIN LATERAL (SELECT pg_get_expr(c.relpartbound, c.oid) AS bound) b
        WHERE i.inhparent = $1::regclass
        ORDER BY upper NULLS LAST`,
      [this.options.table],
    );
    return rows.map((row) => ({ name: row.name, lower: row.lower, upper: row.upper, isDefault: row.is_default }));
  }

  /** Creates the partitions of `now`'s month and the next MONTHS_AHEAD that do not exist. Returns their names. */
  async prepare(now: Date): Promise<string[]> {
    const created: string[] = [];
    for (let month = 0; month <= MONTHS_AHEAD; month++) {
      const lower = monthStart(now, month);
      const upper = monthStart(now, month + 1);
      const existing = await this.list();
      const overlaps = existing.some((p) => !p.isDefault && (p.lower === null || p.lower < upper) && (p.upper === null || p.upper > lower));
      if (overlaps) continue;
      if (await this.createMonth(lower, upper, existing.find((p) => p.isDefault)?.name, lower <= now))
        created.push(partitionName(this.options.table, lower));
    }
    return created;
  }

  /**
   * Drops every partition whose whole range ends at or before `cutoff` (the legacy one too), unless `stillNeeded`
   * says it holds a row that must stay. Returns how many rows went with them (estimated for a large partition).
   */
  async dropExpired(cutoff: Date): Promise<number> {
    let rows = 0;
    for (const partition of await this.list()) {
      if (partition.isDefault || partition.upper === null || partition.upper > cutoff) continue;
      const dropped = await this.guarded(async (): Promise<number | 'kept' | null> => {
        // Looked at under the table's advisory lock: another instance's round may have dropped it since the list.
        if (!(await this.exists(partition.name))) return null;
        if (this.options.stillNeeded && (await this.options.stillNeeded(partition))) return 'kept';
        // For the log: counted when small, the planner's estimate when large (counting would read it all).
        const [{ estimate }]: { estimate: number }[] = await this.tx.transactional.query(
          `SELECT reltuples::bigint AS estimate FROM pg_class WHERE oid = $1::regclass`,
          [partition.name],
        );
        let n = Number(estimate);
        if (n < EXACT_COUNT_BELOW) {
          [{ n }] = await this.tx.transactional.query(`SELECT count(*)::int AS n FROM "${partition.name}"`);
        }
        await this.tx.transactional.query(`DROP TABLE "${partition.name}"`);
        return n;
      });
      if (dropped === 'kept') {
        this.logger.warn({
          msg: `${partition.name}: past retention but still holds rows in use; kept, its expired rows are deleted one by one`,
          partition: partition.name,
        });
      } else if (dropped !== null) {
        this.logger.log({ msg: `${partition.name}: dropped (past retention)`, partition: partition.name, rows: dropped });
        rows += dropped;
      }
    }
    return rows;
  }

  /**
   * A month's partition, made as a table of its own and then attached: CREATE TABLE … PARTITION OF would take an
   * ACCESS EXCLUSIVE lock on the parent (every read of the table waits). Rows the DEFAULT partition caught for the
   * month move in first, with DEFAULT locked against writes meanwhile (ATTACH checks that it holds none of the month's
   * rows). The locks are `monthAttachLocks`: a month ahead is made while reads and writes go on; a month that has begun
   * holds the table's writes while it is made (after waiting for the open ones, within the lock timeout), so that none
   * is routed to DEFAULT and then refused.
   */
  private async createMonth(lower: Date, upper: Date, defaultPartition: string | undefined, begun: boolean): Promise<boolean> {
    const { table, column } = this.options;
    const name = partitionName(table, lower);
    const [from, to] = [lower.toISOString(), upper.toISOString()];
    const done = await this.guarded(async () => {
      if (await this.exists(name)) return false; // another instance's round made it just now
      const q = (sql: string): Promise<unknown> => this.tx.transactional.query(sql);
      for (const lock of monthAttachLocks(table, defaultPartition, begun)) await q(lock);
      await q(`CREATE TABLE "${name}" (LIKE "${table}" INCLUDING DEFAULTS)`);
      await q(`ALTER TABLE "${name}" ADD CONSTRAINT "${name}_bound" CHECK ("${column}" >= '${from}' AND "${column}" < '${to}')`);
      if (defaultPartition) {
        await q(
          `WITH moved AS (DELETE FROM "${defaultPartition}" WHERE "${column}" >= '${from}' AND "${column}" < '${to}' RETURNING *)
           INSERT INTO "${name}" SELECT * FROM moved`,
        );
      }
      await q(`ALTER TABLE "${table}" ATTACH PARTITION "${name}" FOR VALUES FROM ('${from}') TO ('${to}')`);
      await q(`ALTER TABLE "${name}" DROP CONSTRAINT "${name}_bound"`);
      return true;
    });
    if (done) this.logger.log({ msg: `${name}: created`, partition: name });
    return done === true;
  }

  /** Whether a table of this name exists (in the transaction, under the table's advisory lock). */
  private async exists(name: string): Promise<boolean> {
    const [{ found }]: { found: boolean }[] = await this.tx.transactional.query(`SELECT to_regclass($1) IS NOT NULL AS found`, [
      `"${name}"`,
    ]);
    return found;
  }

  /**
   * `work` in a transaction of its own, under the table's advisory lock and `lock_timeout`. Null when another
   * instance holds the advisory lock, or a table lock was not had in time (the next round tries again).
   */
  private async guarded<T>(work: () => Promise<T>): Promise<T | null> {
    try {
      return await this.tx.transaction(async () => {
        const [{ locked }]: { locked: boolean }[] = await this.tx.transactional.query(
          `SELECT pg_try_advisory_xact_lock(hashtext('partitions:' || $1)) AS locked`,
          [this.options.table],
        );
        if (!locked) return null;
        await this.tx.transactional.query(`SET LOCAL lock_timeout = '${LOCK_TIMEOUT}'`);
        return work();
      });
    } catch (error) {
      if ((error as { code?: string }).code !== LOCK_NOT_AVAILABLE) throw error;
      this.logger.warn({
        msg: `${this.options.table}: partition change gave up waiting for a lock; next round`,
        table: this.options.table,
      });
      return null;
    }
  }
}

/**
 * The locks a month's attach takes, in order. PostgreSQL picks a row's partition when its INSERT has the parent's lock,
 * before it locks the partition: a row of a month not attached yet goes to DEFAULT, waits there for this transaction,
 * and once the month is attached its partition check refuses it (23514, isPartitionAttachRace). Writes can head for
 * the month once it has begun (`begun`), so the parent is then locked against them (SHARE ROW EXCLUSIVE: reads go on):
 * a write waits at the parent's lock, and having it sees the new partition. A month ahead needs only SHARE UPDATE
 * EXCLUSIVE on the parent (reads and writes go on; it keeps two attaches or a drop apart).
 */
export function monthAttachLocks(table: string, defaultPartition: string | undefined, begun: boolean): string[] {
  const locks = [`LOCK TABLE "${table}" IN ${begun ? 'SHARE ROW EXCLUSIVE' : 'SHARE UPDATE EXCLUSIVE'} MODE`];
  if (defaultPartition) locks.push(`LOCK TABLE "${defaultPartition}" IN SHARE ROW EXCLUSIVE MODE`);
  return locks;
}

/** The first instant of the month `months` after `from`'s, UTC. */
export function monthStart(from: Date, months = 0): Date {
  return new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth() + months, 1));
}

/** `<table>_pYYYY_MM` for the month starting at `month`. */
export function partitionName(table: string, month: Date): string {
  return `${table}_p${month.getUTCFullYear()}_${String(month.getUTCMonth() + 1).padStart(2, '0')}`;
}
