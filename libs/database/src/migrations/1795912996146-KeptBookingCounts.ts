import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every group's count made right, in one statement (so one snapshot): the bookings counted, less what the group's
 * rows already say, added as one more row where they differ. Run once the triggers are in place, it counts the
 * bookings they never saw (made before them, or loaded with triggers off, as the volume bench's seeding does): a
 * booking committed after the triggers has its row in the same transaction, so it is either in both sums or in
 * neither. Run again on counts already right, it adds nothing.
 */
export const RECONCILE_BOOKING_COUNTS_SQL = `
  INSERT INTO booking_count_deltas (organization_id, livemode, status, delta)
  SELECT organization_id, livemode, status, sum(n)
    FROM (SELECT organization_id, livemode, status, count(*) AS n FROM bookings GROUP BY 1, 2, 3
          UNION ALL
          SELECT organization_id, livemode, status, -sum(delta) FROM booking_count_deltas GROUP BY 1, 2, 3) AS counted
   GROUP BY 1, 2, 3
  HAVING sum(n) <> 0`;

/**
 * GET /bookings' `totalCount` kept rather than counted (issue 54: counting an organization's 500,000 bookings took
 * some 45 ms on every page). `booking_count_deltas` holds rows per organization, mode and status whose sum is the
 * count; triggers on `bookings` add them in the transaction that inserts or deletes bookings (one row per group and
 * statement, from the statement's transition table) or changes a booking's status, mode or organization (a row per
 * side). Nothing waits on a counter row: each transaction adds its own, and a periodic job (BookingRows.foldCounts)
 * folds them.
 *
 * Online (docs/operating/upgrades.md): the table and its triggers in one short transaction (CREATE TRIGGER waits, at
 * most the migration's lock_timeout, for the bookings' writes in progress and holds them for an instant), then the
 * bookings made before it counted in one statement that reads a snapshot and blocks no one
 * (RECONCILE_BOOKING_COUNTS_SQL). Run again after failing half way, it adds nothing twice.
 */
export class KeptBookingCounts1795912996146 implements MigrationInterface {
  name = 'KeptBookingCounts1795912996146';
  transaction = false as const;

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.startTransaction();
    try {
      await queryRunner.query(
        `CREATE TABLE IF NOT EXISTS "booking_count_deltas" (
           "id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
           "organization_id" text NOT NULL,
           "livemode" boolean NOT NULL,
           "status" text NOT NULL,
           "delta" bigint NOT NULL,
           CONSTRAINT "PK_67af17be4c7c79465d7be8aeebf" PRIMARY KEY ("id")
         )`,
      );
      await queryRunner.query(
        `CREATE INDEX IF NOT EXISTS "booking_count_deltas_group_idx" ON "booking_count_deltas" ("organization_id", "livemode", "status")`,
      );
      await queryRunner.query(
        `CREATE OR REPLACE FUNCTION booking_counts_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN
           INSERT INTO booking_count_deltas (organization_id, livemode, status, delta)
           SELECT organization_id, livemode, status, count(*) FROM booking_counts_new GROUP BY 1, 2, 3;
           RETURN NULL;
         END $$`,
      );
      await queryRunner.query(
        `CREATE OR REPLACE FUNCTION booking_counts_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN
           INSERT INTO booking_count_deltas (organization_id, livemode, status, delta)
           SELECT organization_id, livemode, status, -count(*) FROM booking_counts_old GROUP BY 1, 2, 3;
           RETURN NULL;
         END $$`,
      );
      await queryRunner.query(
        `CREATE OR REPLACE FUNCTION booking_counts_updated() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN
           INSERT INTO booking_count_deltas (organization_id, livemode, status, delta)
           VALUES (OLD.organization_id, OLD.livemode, OLD.status, -1), (NEW.organization_id, NEW.livemode, NEW.status, 1);
           RETURN NULL;
         END $$`,
      );
      await queryRunner.query(
        `CREATE OR REPLACE TRIGGER booking_counts_insert AFTER INSERT ON "bookings"
           REFERENCING NEW TABLE AS booking_counts_new FOR EACH STATEMENT EXECUTE FUNCTION booking_counts_inserted()`,
      );
      await queryRunner.query(
        `CREATE OR REPLACE TRIGGER booking_counts_delete AFTER DELETE ON "bookings"
           REFERENCING OLD TABLE AS booking_counts_old FOR EACH STATEMENT EXECUTE FUNCTION booking_counts_deleted()`,
      );
      // Row by row, and only when a count moves: a booking's other updates (marks, notes, reminders) add nothing.
      await queryRunner.query(
        `CREATE OR REPLACE TRIGGER booking_counts_update AFTER UPDATE OF "organization_id", "livemode", "status" ON "bookings"
           FOR EACH ROW
           WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.livemode IS DISTINCT FROM NEW.livemode
                 OR OLD.organization_id IS DISTINCT FROM NEW.organization_id)
           EXECUTE FUNCTION booking_counts_updated()`,
      );
      await queryRunner.commitTransaction();
    } catch (error) {
      await queryRunner.rollbackTransaction();
      throw error;
    }
    await queryRunner.query(RECONCILE_BOOKING_COUNTS_SQL);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER IF EXISTS booking_counts_update ON "bookings"`);
    await queryRunner.query(`DROP TRIGGER IF EXISTS booking_counts_delete ON "bookings"`);
    await queryRunner.query(`DROP TRIGGER IF EXISTS booking_counts_insert ON "bookings"`);
    await queryRunner.query(`DROP FUNCTION IF EXISTS booking_counts_updated()`);
    await queryRunner.query(`DROP FUNCTION IF EXISTS booking_counts_deleted()`);
    await queryRunner.query(`DROP FUNCTION IF EXISTS booking_counts_inserted()`);
    await queryRunner.query(`DROP TABLE IF EXISTS "booking_count_deltas"`);
  }
}
