import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Seats and recurring bookings (api-rules.md § Seats and series). Generated from the entities, then reviewed: the
 * generator's drops of the hand-made foreign keys are left out, and the exclusion constraint (which it does
 * not compare) is reshaped by hand.
 *
 * Seats: the rows of one start of a seated event type carry one `seat_group` and do not exclude each other;
 * every other overlap still does (a row without a group is its own group, `coalesce(seat_group, booking_id)`),
 * so existing rows keep exactly the constraint they had. The count per group is taken under the hosts' locks.
 * Series: `booking_series` and each occurrence's `series_id` and `occurrence`.
 */
export class SeatsAndSeries1795585466508 implements MigrationInterface {
  name = 'SeatsAndSeries1795585466508';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            CREATE TABLE "booking_series" (
                "id" text NOT NULL,
                "organization_id" text NOT NULL,
                "livemode" boolean NOT NULL,
                "event_type_id" text NOT NULL,
                "frequency" text NOT NULL,
                "interval" smallint NOT NULL,
                "count" smallint NOT NULL,
                "token_hash" text NOT NULL,
                "timezone" text NOT NULL,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                CONSTRAINT "PK_d9121388a3326c119114075fb61" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(
      `CREATE INDEX "booking_series_organization_idx" ON "booking_series" ("organization_id", "livemode", "created_at")`,
    );
    await queryRunner.query(`
            ALTER TABLE "booking_series" ADD CONSTRAINT "booking_series_organization_fk" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE
        `);
    await queryRunner.query(`
            ALTER TABLE "booking_series" ADD CONSTRAINT "booking_series_event_type_fk" FOREIGN KEY ("event_type_id") REFERENCES "event_types"("id") ON DELETE CASCADE
        `);
    await queryRunner.query(`ALTER TABLE "bookings" ADD "series_id" text`);
    await queryRunner.query(`ALTER TABLE "bookings" ADD "occurrence" smallint`);
    await queryRunner.query(`CREATE INDEX "bookings_series_idx" ON "bookings" ("series_id", "occurrence") WHERE "series_id" IS NOT NULL`);
    await queryRunner.query(`ALTER TABLE "event_types" ADD "seats_per_slot" integer`);
    await queryRunner.query(`ALTER TABLE "event_types" ADD "recurrence" jsonb`);
    await queryRunner.query(
      `ALTER TABLE "event_types" ADD CONSTRAINT "event_types_seats_or_recurrence" CHECK ("seats_per_slot" IS NULL OR "recurrence" IS NULL)`,
    );
    await queryRunner.query(
      `ALTER TABLE "event_types" ADD CONSTRAINT "event_types_seats_range" CHECK ("seats_per_slot" IS NULL OR "seats_per_slot" BETWEEN 2 AND 1000)`,
    );
    await queryRunner.query(`ALTER TABLE "booking_hosts" ADD "seat_group" text`);
    await queryRunner.query(`ALTER TABLE "booking_hosts" DROP CONSTRAINT "booking_hosts_no_overlap"`);
    // `during` before the seat group: GiST places an entry by its first columns, so a host's rows stay ordered by
    // time (the group, nearly unique, would scatter them and make every check read the host's whole history).
    await queryRunner.query(`
            ALTER TABLE "booking_hosts" ADD CONSTRAINT "booking_hosts_no_overlap" EXCLUDE USING gist (
                "host_user_id" WITH =,
                "livemode" WITH =,
                "during" WITH &&,
                (coalesce("seat_group", "booking_id")) WITH <>
            ) WHERE ("status" IN ('confirmed', 'pending', 'held'))
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    // Seated starts cannot be expressed by the old constraint: their extra seats go first.
    await queryRunner.query(`
            DELETE FROM "booking_hosts" bh USING (
                SELECT booking_id, row_number() OVER (PARTITION BY host_user_id, livemode, seat_group ORDER BY created_at, booking_id) AS n
                  FROM "booking_hosts" WHERE "seat_group" IS NOT NULL
            ) seats WHERE bh.booking_id = seats.booking_id AND seats.n > 1
        `);
    await queryRunner.query(`ALTER TABLE "booking_hosts" DROP CONSTRAINT "booking_hosts_no_overlap"`);
    await queryRunner.query(`
            ALTER TABLE "booking_hosts" ADD CONSTRAINT "booking_hosts_no_overlap" EXCLUDE USING gist (
                "host_user_id" WITH =,
                "livemode" WITH =,
                "during" WITH &&
            ) WHERE ("status" IN ('confirmed', 'pending', 'held'))
        `);
    await queryRunner.query(`ALTER TABLE "booking_hosts" DROP COLUMN "seat_group"`);
    await queryRunner.query(`ALTER TABLE "event_types" DROP CONSTRAINT "event_types_seats_range"`);
    await queryRunner.query(`ALTER TABLE "event_types" DROP CONSTRAINT "event_types_seats_or_recurrence"`);
    await queryRunner.query(`ALTER TABLE "event_types" DROP COLUMN "recurrence"`);
    await queryRunner.query(`ALTER TABLE "event_types" DROP COLUMN "seats_per_slot"`);
    await queryRunner.query(`DROP INDEX "public"."bookings_series_idx"`);
    await queryRunner.query(`ALTER TABLE "bookings" DROP COLUMN "occurrence"`);
    await queryRunner.query(`ALTER TABLE "bookings" DROP COLUMN "series_id"`);
    await queryRunner.query(`DROP TABLE "booking_series"`);
  }
}
