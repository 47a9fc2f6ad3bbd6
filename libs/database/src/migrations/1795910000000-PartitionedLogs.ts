import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The append-only logs partitioned by month (issue 54, docs/operating/partitions.md): `audit_entries` by
 * `occurred_at`, `domain_events` by `created_at`, `webhook_attempts` by `started_at`. Retention then drops a month's
 * partition whole instead of deleting its rows (apps/api/src/jobs/partitions.ts, on the housekeeping jobs' loop).
 *
 * Online, on tables of millions of rows: no row is copied and no table is scanned under a lock that blocks writes.
 * Each existing table becomes the parent's first partition, `<table>_p_legacy`, covering everything before the next
 * month's first day:
 * 1. outside any transaction: a unique index on (primary key, time column) built CONCURRENTLY (a partitioned
 *    table's primary key must hold its partition key), and a CHECK matching the partition's bound added NOT VALID,
 *    then validated (SHARE UPDATE EXCLUSIVE: writes go on), so that ATTACH PARTITION finds the bound implied and
 *    skips its scan;
 * 2. in one short transaction: the old primary key swapped for that index (PRIMARY KEY USING INDEX: no scan, the
 *    columns are NOT NULL; lookups by id use its leading column), the partitioned parent, its key, indexes and foreign
 *    keys (defined exactly as the existing table's, so ATTACH adopts them rather than building or validating
 *    anything), ATTACH, the next months' partitions and a DEFAULT one (empty but for rows of a month no partition
 *    covers yet), then the names swapped.
 * Everything in (1) may be run again (lock_timeout makes the runner retry the migration from the start).
 */
export class PartitionedLogs1795910000000 implements MigrationInterface {
  name = 'PartitionedLogs1795910000000';
  transaction = false;

  public async up(queryRunner: QueryRunner): Promise<void> {
    const done: { n: number }[] = await queryRunner.query(
      `SELECT count(*)::int AS n FROM pg_class WHERE relname IN ('audit_entries', 'domain_events', 'webhook_attempts') AND relkind = 'p'`,
    );
    if (done[0].n === 3) return; // the swap committed; only recording the migration failed
    const bound = monthStart(new Date(), 1);
    const next = monthStart(new Date(), 2);
    const after = monthStart(new Date(), 3);
    const [b, n, a] = [bound, next, after].map((date) => date.toISOString());
    const [pb, pn] = [bound, next].map(suffix);

    // (1) The keys the parents will adopt, and the validated bounds.
    await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS "audit_entries_p_legacy_key"`);
    await queryRunner.query(`CREATE UNIQUE INDEX CONCURRENTLY "audit_entries_p_legacy_key" ON "audit_entries" ("id", "occurred_at")`);
    await queryRunner.query(`ALTER TABLE "audit_entries" DROP CONSTRAINT IF EXISTS "audit_entries_p_legacy_bound"`);
    await queryRunner.query(
      `ALTER TABLE "audit_entries" ADD CONSTRAINT "audit_entries_p_legacy_bound" CHECK ("occurred_at" < '${b}') NOT VALID`,
    );
    await queryRunner.query(`ALTER TABLE "audit_entries" VALIDATE CONSTRAINT "audit_entries_p_legacy_bound"`);

    await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS "domain_events_p_legacy_key"`);
    await queryRunner.query(`CREATE UNIQUE INDEX CONCURRENTLY "domain_events_p_legacy_key" ON "domain_events" ("id", "created_at")`);
    await queryRunner.query(`ALTER TABLE "domain_events" DROP CONSTRAINT IF EXISTS "domain_events_p_legacy_bound"`);
    await queryRunner.query(
      `ALTER TABLE "domain_events" ADD CONSTRAINT "domain_events_p_legacy_bound" CHECK ("created_at" < '${b}') NOT VALID`,
    );
    await queryRunner.query(`ALTER TABLE "domain_events" VALIDATE CONSTRAINT "domain_events_p_legacy_bound"`);

    await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS "webhook_attempts_p_legacy_key"`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX CONCURRENTLY "webhook_attempts_p_legacy_key" ON "webhook_attempts" ("delivery_id", "attempt", "started_at")`,
    );
    await queryRunner.query(`ALTER TABLE "webhook_attempts" DROP CONSTRAINT IF EXISTS "webhook_attempts_p_legacy_bound"`);
    await queryRunner.query(
      `ALTER TABLE "webhook_attempts" ADD CONSTRAINT "webhook_attempts_p_legacy_bound" CHECK ("started_at" < '${b}') NOT VALID`,
    );
    await queryRunner.query(`ALTER TABLE "webhook_attempts" VALIDATE CONSTRAINT "webhook_attempts_p_legacy_bound"`);

    // (2) One short transaction: nothing in it reads a row of the old tables.
    await queryRunner.startTransaction();
    try {
      // audit_entries: the parent takes the index names (EXPLAIN and the benches name them); the old ones get `_legacy`.
      for (const index of ['action', 'actor_action', 'actor', 'page', 'resource', 'retention']) {
        await queryRunner.query(`ALTER INDEX "audit_entries_${index}_idx" RENAME TO "audit_entries_${index}_idx_legacy"`);
      }
      await queryRunner.query(`ALTER TABLE "audit_entries" DROP CONSTRAINT "PK_audit_entries"`);
      await queryRunner.query(
        `ALTER TABLE "audit_entries" ADD CONSTRAINT "audit_entries_p_legacy_key" PRIMARY KEY USING INDEX "audit_entries_p_legacy_key"`,
      );
      await queryRunner.query(
        `CREATE TABLE "audit_entries_partitioned" (LIKE "audit_entries" INCLUDING DEFAULTS) PARTITION BY RANGE ("occurred_at")`,
      );
      await queryRunner.query(
        `ALTER TABLE "audit_entries_partitioned" ADD CONSTRAINT "audit_entries_pkey" PRIMARY KEY ("id", "occurred_at")`,
      );
      await queryRunner.query(
        `CREATE INDEX "audit_entries_action_idx" ON "audit_entries_partitioned" ("organization_id", "action", "tx_id" DESC, "occurred_at" DESC, "id" DESC)`,
      );
      await queryRunner.query(
        `CREATE INDEX "audit_entries_actor_action_idx" ON "audit_entries_partitioned" ("organization_id", "actor_id", "action", "tx_id" DESC, "occurred_at" DESC, "id" DESC)`,
      );
      await queryRunner.query(
        `CREATE INDEX "audit_entries_actor_idx" ON "audit_entries_partitioned" ("organization_id", "actor_id", "tx_id" DESC, "occurred_at" DESC, "id" DESC)`,
      );
      await queryRunner.query(
        `CREATE INDEX "audit_entries_page_idx" ON "audit_entries_partitioned" ("organization_id", "tx_id" DESC, "occurred_at" DESC, "id" DESC)`,
      );
      await queryRunner.query(
        `CREATE INDEX "audit_entries_resource_idx" ON "audit_entries_partitioned" ("organization_id", "resource_id", "tx_id" DESC, "occurred_at" DESC, "id" DESC)`,
      );
      await queryRunner.query(`CREATE INDEX "audit_entries_retention_idx" ON "audit_entries_partitioned" ("occurred_at")`);
      await queryRunner.query(
        `ALTER TABLE "audit_entries_partitioned" ADD CONSTRAINT "audit_entries_organization_fk" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE`,
      );
      await queryRunner.query(
        `ALTER TABLE "audit_entries_partitioned" ATTACH PARTITION "audit_entries" FOR VALUES FROM (MINVALUE) TO ('${b}')`,
      );
      await queryRunner.query(
        `CREATE TABLE "audit_entries_${pb}" PARTITION OF "audit_entries_partitioned" FOR VALUES FROM ('${b}') TO ('${n}')`,
      );
      await queryRunner.query(
        `CREATE TABLE "audit_entries_${pn}" PARTITION OF "audit_entries_partitioned" FOR VALUES FROM ('${n}') TO ('${a}')`,
      );
      await queryRunner.query(`CREATE TABLE "audit_entries_default" PARTITION OF "audit_entries_partitioned" DEFAULT`);
      await queryRunner.query(`ALTER TABLE "audit_entries" RENAME TO "audit_entries_p_legacy"`);
      await queryRunner.query(`ALTER TABLE "audit_entries_partitioned" RENAME TO "audit_entries"`);

      // domain_events: the dispatcher's indexes, partial as before, and erasure's (VolumeIndexes: the events about a
      // booking, its predecessor, a routing response), defined as on the legacy table so that ATTACH adopts them.
      for (const index of DOMAIN_EVENT_INDEXES) {
        await queryRunner.query(`ALTER INDEX "domain_events_${index}_idx" RENAME TO "domain_events_${index}_idx_legacy"`);
      }
      await queryRunner.query(`ALTER TABLE "domain_events" DROP CONSTRAINT "PK_66e0920a32dda3a89b46ee7a981"`);
      await queryRunner.query(
        `ALTER TABLE "domain_events" ADD CONSTRAINT "domain_events_p_legacy_key" PRIMARY KEY USING INDEX "domain_events_p_legacy_key"`,
      );
      await queryRunner.query(
        `CREATE TABLE "domain_events_partitioned" (LIKE "domain_events" INCLUDING DEFAULTS) PARTITION BY RANGE ("created_at")`,
      );
      await queryRunner.query(
        `ALTER TABLE "domain_events_partitioned" ADD CONSTRAINT "domain_events_pkey" PRIMARY KEY ("id", "created_at")`,
      );
      await queryRunner.query(
        `CREATE INDEX "domain_events_waiting_idx" ON "domain_events_partitioned" ("due_at", "created_at", "id") WHERE dispatched_at IS NULL AND failed_at IS NULL`,
      );
      await queryRunner.query(
        `CREATE INDEX "domain_events_leased_idx" ON "domain_events_partitioned" ("locked_until") WHERE locked_until IS NOT NULL`,
      );
      await queryRunner.query(
        `CREATE INDEX "domain_events_failed_idx" ON "domain_events_partitioned" ("failed_at") WHERE failed_at IS NOT NULL`,
      );
      await queryRunner.query(
        `CREATE INDEX "domain_events_booking_idx" ON "domain_events_partitioned" ("organization_id", (data #>> '{booking,id}')) WHERE data #>> '{booking,id}' IS NOT NULL`,
      );
      await queryRunner.query(
        `CREATE INDEX "domain_events_previous_booking_idx" ON "domain_events_partitioned" ("organization_id", (data #>> '{previousBooking,id}')) WHERE data #>> '{previousBooking,id}' IS NOT NULL`,
      );
      await queryRunner.query(
        `CREATE INDEX "domain_events_routing_response_idx" ON "domain_events_partitioned" ("organization_id", (data #>> '{response,id}')) WHERE type = 'routing_form.submitted'`,
      );
      await queryRunner.query(
        `ALTER TABLE "domain_events_partitioned" ATTACH PARTITION "domain_events" FOR VALUES FROM (MINVALUE) TO ('${b}')`,
      );
      await queryRunner.query(
        `CREATE TABLE "domain_events_${pb}" PARTITION OF "domain_events_partitioned" FOR VALUES FROM ('${b}') TO ('${n}')`,
      );
      await queryRunner.query(
        `CREATE TABLE "domain_events_${pn}" PARTITION OF "domain_events_partitioned" FOR VALUES FROM ('${n}') TO ('${a}')`,
      );
      await queryRunner.query(`CREATE TABLE "domain_events_default" PARTITION OF "domain_events_partitioned" DEFAULT`);
      await queryRunner.query(`ALTER TABLE "domain_events" RENAME TO "domain_events_p_legacy"`);
      await queryRunner.query(`ALTER TABLE "domain_events_partitioned" RENAME TO "domain_events"`);

      // webhook_attempts: its foreign key to the deliveries (ON DELETE CASCADE) stays, declared on the parent.
      await queryRunner.query(`ALTER TABLE "webhook_attempts" DROP CONSTRAINT "PK_5ec32a71f45112dcc2ef75373a6"`);
      await queryRunner.query(
        `ALTER TABLE "webhook_attempts" ADD CONSTRAINT "webhook_attempts_p_legacy_key" PRIMARY KEY USING INDEX "webhook_attempts_p_legacy_key"`,
      );
      await queryRunner.query(
        `CREATE TABLE "webhook_attempts_partitioned" (LIKE "webhook_attempts" INCLUDING DEFAULTS) PARTITION BY RANGE ("started_at")`,
      );
      await queryRunner.query(
        `ALTER TABLE "webhook_attempts_partitioned" ADD CONSTRAINT "webhook_attempts_pkey" PRIMARY KEY ("delivery_id", "attempt", "started_at")`,
      );
      await queryRunner.query(
        `ALTER TABLE "webhook_attempts_partitioned" ADD CONSTRAINT "FK_0d56d91d61b827bb2079c256538" FOREIGN KEY ("delivery_id") REFERENCES "webhook_deliveries"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
      );
      await queryRunner.query(
        `ALTER TABLE "webhook_attempts_partitioned" ATTACH PARTITION "webhook_attempts" FOR VALUES FROM (MINVALUE) TO ('${b}')`,
      );
      await queryRunner.query(
        `CREATE TABLE "webhook_attempts_${pb}" PARTITION OF "webhook_attempts_partitioned" FOR VALUES FROM ('${b}') TO ('${n}')`,
      );
      await queryRunner.query(
        `CREATE TABLE "webhook_attempts_${pn}" PARTITION OF "webhook_attempts_partitioned" FOR VALUES FROM ('${n}') TO ('${a}')`,
      );
      await queryRunner.query(`CREATE TABLE "webhook_attempts_default" PARTITION OF "webhook_attempts_partitioned" DEFAULT`);
      await queryRunner.query(`ALTER TABLE "webhook_attempts" RENAME TO "webhook_attempts_p_legacy"`);
      await queryRunner.query(`ALTER TABLE "webhook_attempts_partitioned" RENAME TO "webhook_attempts"`);
      await queryRunner.commitTransaction();
    } catch (error) {
      await queryRunner.rollbackTransaction();
      throw error;
    }
  }

  /**
   * Back to plain tables: every partition's rows copied into the legacy one, which takes the name again. Not online
   * (it copies every row written since); for a database that has just run `up`.
   */
  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.startTransaction();
    try {
      for (const [table, key, columns, indexes] of [
        ['audit_entries', 'PK_audit_entries', '"id"', ['action', 'actor_action', 'actor', 'page', 'resource', 'retention']],
        ['domain_events', 'PK_66e0920a32dda3a89b46ee7a981', '"id"', DOMAIN_EVENT_INDEXES],
        ['webhook_attempts', 'PK_5ec32a71f45112dcc2ef75373a6', '"delivery_id", "attempt"', []],
      ] as const) {
        await queryRunner.query(`ALTER TABLE "${table}" DETACH PARTITION "${table}_p_legacy"`);
        await queryRunner.query(`ALTER TABLE "${table}_p_legacy" DROP CONSTRAINT "${table}_p_legacy_bound"`);
        await queryRunner.query(`INSERT INTO "${table}_p_legacy" SELECT * FROM "${table}"`);
        await queryRunner.query(`DROP TABLE "${table}"`);
        await queryRunner.query(`ALTER TABLE "${table}_p_legacy" RENAME TO "${table}"`);
        await queryRunner.query(`ALTER TABLE "${table}" DROP CONSTRAINT "${table}_p_legacy_key"`);
        await queryRunner.query(`ALTER TABLE "${table}" ADD CONSTRAINT "${key}" PRIMARY KEY (${columns})`);
        for (const index of indexes)
          await queryRunner.query(`ALTER INDEX "${table}_${index}_idx_legacy" RENAME TO "${table}_${index}_idx"`);
      }
      await queryRunner.commitTransaction();
    } catch (error) {
      await queryRunner.rollbackTransaction();
      throw error;
    }
  }
}

/** domain_events' indexes besides its key (the parent's are named `domain_events_<name>_idx`). */
const DOMAIN_EVENT_INDEXES = ['waiting', 'leased', 'failed', 'booking', 'previous_booking', 'routing_response'] as const;

/** The first instant of the month `months` after `from`'s, UTC. */
function monthStart(from: Date, months: number): Date {
  return new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth() + months, 1));
}

/** A month partition's name suffix: `p2026_12`. */
function suffix(month: Date): string {
  return `p${month.getUTCFullYear()}_${String(month.getUTCMonth() + 1).padStart(2, '0')}`;
}
