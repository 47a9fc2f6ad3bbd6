import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The append-only logs partitioned by month (issue 54, docs/operating/partitions.md): `audit_entries` by
 * `occurred_at`, `domain_events` by `created_at`, `webhook_attempts` by `started_at`. Retention then drops a month's
 * partition whole instead of deleting its rows (apps/api/src/jobs/partitions.ts, on the housekeeping jobs' loop).
 *
 * Online, on tables of millions of rows: no row is copied and no table is scanned under a lock that blocks writes.
 * Each existing table becomes the parent's first partition, `<table>_p_legacy`, covering everything before the first
 * day of the month after next (a month or more of margin), one table after the other:
 * 1. outside any transaction: a unique index on (primary key, time column) built CONCURRENTLY (a partitioned
 *    table's primary key must hold its partition key), and a CHECK matching the partition's bound added NOT VALID,
 *    then validated (SHARE UPDATE EXCLUSIVE: writes go on), so that ATTACH PARTITION finds the bound implied and
 *    skips its scan;
 * 2. in one short transaction of that table's own: the old primary key swapped for that index (PRIMARY KEY USING INDEX: no scan, the
 *    columns are NOT NULL; lookups by id use its leading column), the partitioned parent, its key, indexes and foreign
 *    keys (defined exactly as the existing table's, so ATTACH adopts them rather than building or validating
 *    anything), ATTACH, the next months' partitions and a DEFAULT one (empty but for rows of a month no partition
 *    covers yet), then the names swapped.
 * Everything may be run again (lock_timeout makes the runner retry the migration from the start): a table already
 * partitioned is skipped, a valid key index kept. A transaction (2) that failed drops its table's CHECK again.
 */
export class PartitionedLogs1795910000000 implements MigrationInterface {
  name = 'PartitionedLogs1795910000000';
  transaction = false;

  public async up(queryRunner: QueryRunner): Promise<void> {
    // The legacy partition covers everything before the second month's first day: a month or more of margin, so that
    // the bound (enforced on new rows from its CHECK's addition) is never reached while this runs.
    const now = new Date();
    const [bound, next, after] = [2, 3, 4].map((months) => monthStart(now, months));
    for (const log of LOGS) {
      if (await isPartitioned(queryRunner, log.table)) continue; // done by an earlier attempt
      await partition(queryRunner, log, bound, next, after);
    }
  }

  /**
   * Back to plain tables: every partition's rows copied into the legacy one, which takes the name again. Not online
   * (it copies every row written since); for a database that has just run `up`.
   */
  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.startTransaction();
    try {
      for (const { table, oldKey, oldKeyColumns, indexes } of LOGS) {
        await queryRunner.query(`ALTER TABLE "${table}" DETACH PARTITION "${table}_p_legacy"`);
        await queryRunner.query(`ALTER TABLE "${table}_p_legacy" DROP CONSTRAINT "${table}_p_legacy_bound"`);
        await queryRunner.query(`INSERT INTO "${table}_p_legacy" SELECT * FROM "${table}"`);
        await queryRunner.query(`DROP TABLE "${table}"`);
        await queryRunner.query(`ALTER TABLE "${table}_p_legacy" RENAME TO "${table}"`);
        await queryRunner.query(`ALTER TABLE "${table}" DROP CONSTRAINT "${table}_p_legacy_key"`);
        await queryRunner.query(`ALTER TABLE "${table}" ADD CONSTRAINT "${oldKey}" PRIMARY KEY (${oldKeyColumns})`);
        for (const [index] of indexes)
          await queryRunner.query(`ALTER INDEX "${table}_${index}_idx_legacy" RENAME TO "${table}_${index}_idx"`);
      }
      await queryRunner.commitTransaction();
    } catch (error) {
      await queryRunner.rollbackTransaction();
      throw error;
    }
  }
}

/** One log table and what its partitioned parent is made of (defined exactly as the table's own, so ATTACH adopts them). */
interface LogTable {
  table: string;
  /** The partition key, a timestamptz column (NOT NULL). */
  column: string;
  /** The table's primary key before, and its columns. */
  oldKey: string;
  oldKeyColumns: string;
  /** The parent's key: the old one's columns and the partition key. */
  keyColumns: string;
  /** `<table>_<name>_idx` and what follows `ON <parent>`. */
  indexes: readonly (readonly [string, string])[];
  foreignKey?: string;
}

const LOGS: readonly LogTable[] = [
  {
    table: 'audit_entries',
    column: 'occurred_at',
    oldKey: 'PK_audit_entries',
    oldKeyColumns: '"id"',
    keyColumns: '"id", "occurred_at"',
    indexes: [
      ['action', `("organization_id", "action", "tx_id" DESC, "occurred_at" DESC, "id" DESC)`],
      ['actor_action', `("organization_id", "actor_id", "action", "tx_id" DESC, "occurred_at" DESC, "id" DESC)`],
      ['actor', `("organization_id", "actor_id", "tx_id" DESC, "occurred_at" DESC, "id" DESC)`],
      ['page', `("organization_id", "tx_id" DESC, "occurred_at" DESC, "id" DESC)`],
      ['resource', `("organization_id", "resource_id", "tx_id" DESC, "occurred_at" DESC, "id" DESC)`],
      ['retention', `("occurred_at")`],
    ],
    foreignKey: `"audit_entries_organization_fk" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE`,
  },
  {
    table: 'domain_events',
    column: 'created_at',
    oldKey: 'PK_66e0920a32dda3a89b46ee7a981',
    oldKeyColumns: '"id"',
    keyColumns: '"id", "created_at"',
    // The dispatcher's (partial, as before) and erasure's (VolumeIndexes: the events about a booking, its predecessor,
    // a routing response).
    indexes: [
      ['waiting', `("due_at", "created_at", "id") WHERE dispatched_at IS NULL AND failed_at IS NULL`],
      ['leased', `("locked_until") WHERE locked_until IS NOT NULL`],
      ['failed', `("failed_at") WHERE failed_at IS NOT NULL`],
      ['booking', `("organization_id", (data #>> '{booking,id}')) WHERE data #>> '{booking,id}' IS NOT NULL`],
      ['previous_booking', `("organization_id", (data #>> '{previousBooking,id}')) WHERE data #>> '{previousBooking,id}' IS NOT NULL`],
      ['routing_response', `("organization_id", (data #>> '{response,id}')) WHERE type = 'routing_form.submitted'`],
    ],
  },
  {
    table: 'webhook_attempts',
    column: 'started_at',
    oldKey: 'PK_5ec32a71f45112dcc2ef75373a6',
    oldKeyColumns: '"delivery_id", "attempt"',
    keyColumns: '"delivery_id", "attempt", "started_at"',
    indexes: [],
    // Its foreign key to the deliveries (ON DELETE CASCADE) stays, declared on the parent.
    foreignKey: `"FK_0d56d91d61b827bb2079c256538" FOREIGN KEY ("delivery_id") REFERENCES "webhook_deliveries"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
  },
];

async function isPartitioned(queryRunner: QueryRunner, table: string): Promise<boolean> {
  const rows: unknown[] = await queryRunner.query(
    `SELECT 1 FROM pg_class WHERE relname = $1 AND relkind = 'p' AND relnamespace = 'public'::regnamespace`,
    [table],
  );
  return rows.length > 0;
}

/**
 * One table: (1) outside a transaction, its (key, time) unique index built CONCURRENTLY (kept when an earlier attempt
 * built it; no lock_timeout: the build waits for older transactions without blocking anyone's writes) and its bound's
 * CHECK added NOT VALID then validated; (2) one short transaction of its own (the three tables never locked together,
 * so no request that writes two of them can deadlock with this), which on failure also drops the CHECK again: a CHECK
 * left behind would refuse the table's rows once the bound's month came.
 */
async function partition(queryRunner: QueryRunner, log: LogTable, bound: Date, next: Date, after: Date): Promise<void> {
  const { table, column } = log;
  const [b, n, a] = [bound, next, after].map((date) => date.toISOString());
  const [pb, pn] = [bound, next].map(suffix);
  const key = `${table}_p_legacy_key`;
  const check = `${table}_p_legacy_bound`;
  const valid: { valid: boolean }[] = await queryRunner.query(
    `SELECT x.indisvalid AS valid FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
      WHERE i.relname = $1 AND i.relnamespace = 'public'::regnamespace`,
    [key],
  );
  if (!valid[0]?.valid) {
    const [{ lock_timeout: lockTimeout }]: { lock_timeout: string }[] = await queryRunner.query(`SHOW lock_timeout`);
    await queryRunner.query(`SET lock_timeout = 0`);
    try {
      await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS "${key}"`);
      await queryRunner.query(`CREATE UNIQUE INDEX CONCURRENTLY "${key}" ON "${table}" (${log.keyColumns})`);
    } finally {
      await queryRunner.query(`SELECT set_config('lock_timeout', $1, false)`, [lockTimeout]);
    }
  }
  await queryRunner.query(`ALTER TABLE "${table}" DROP CONSTRAINT IF EXISTS "${check}"`);
  await queryRunner.query(`ALTER TABLE "${table}" ADD CONSTRAINT "${check}" CHECK ("${column}" < '${b}') NOT VALID`);
  await queryRunner.query(`ALTER TABLE "${table}" VALIDATE CONSTRAINT "${check}"`);

  await queryRunner.startTransaction();
  try {
    // The parent takes the index names (EXPLAIN and the benches name them); the old ones get `_legacy`.
    for (const [name] of log.indexes) await queryRunner.query(`ALTER INDEX "${table}_${name}_idx" RENAME TO "${table}_${name}_idx_legacy"`);
    await queryRunner.query(`ALTER TABLE "${table}" DROP CONSTRAINT "${log.oldKey}"`);
    await queryRunner.query(`ALTER TABLE "${table}" ADD CONSTRAINT "${key}" PRIMARY KEY USING INDEX "${key}"`);
    const parent = `${table}_partitioned`;
    await queryRunner.query(`CREATE TABLE "${parent}" (LIKE "${table}" INCLUDING DEFAULTS) PARTITION BY RANGE ("${column}")`);
    await queryRunner.query(`ALTER TABLE "${parent}" ADD CONSTRAINT "${table}_pkey" PRIMARY KEY (${log.keyColumns})`);
    for (const [name, definition] of log.indexes)
      await queryRunner.query(`CREATE INDEX "${table}_${name}_idx" ON "${parent}" ${definition}`);
    if (log.foreignKey) await queryRunner.query(`ALTER TABLE "${parent}" ADD CONSTRAINT ${log.foreignKey}`);
    await queryRunner.query(`ALTER TABLE "${parent}" ATTACH PARTITION "${table}" FOR VALUES FROM (MINVALUE) TO ('${b}')`);
    await queryRunner.query(`CREATE TABLE "${table}_${pb}" PARTITION OF "${parent}" FOR VALUES FROM ('${b}') TO ('${n}')`);
    await queryRunner.query(`CREATE TABLE "${table}_${pn}" PARTITION OF "${parent}" FOR VALUES FROM ('${n}') TO ('${a}')`);
    await queryRunner.query(`CREATE TABLE "${table}_default" PARTITION OF "${parent}" DEFAULT`);
    await queryRunner.query(`ALTER TABLE "${table}" RENAME TO "${table}_p_legacy"`);
    await queryRunner.query(`ALTER TABLE "${parent}" RENAME TO "${table}"`);
    await queryRunner.commitTransaction();
  } catch (error) {
    await queryRunner.rollbackTransaction();
    await queryRunner.query(`ALTER TABLE "${table}" DROP CONSTRAINT IF EXISTS "${check}"`).catch(() => undefined);
    throw error;
  }
}

/** The first instant of the month `months` after `from`'s, UTC. */
function monthStart(from: Date, months: number): Date {
  return new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth() + months, 1));
}

/** A month partition's name suffix: `p2026_12`. */
function suffix(month: Date): string {
  return `p${month.getUTCFullYear()}_${String(month.getUTCMonth() + 1).padStart(2, '0')}`;
}
