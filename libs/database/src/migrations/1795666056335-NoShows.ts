import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * No-show marks on bookings (api-rules.md § Reminders). Generated from the entities, then reviewed: the generator's
 * drops of the hand-made foreign keys are left out. The partial indexes serve `GET /bookings?noShow=` without
 * growing with the bookings nobody marked.
 */
export class NoShows1795666056335 implements MigrationInterface {
  name = 'NoShows1795666056335';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            ALTER TABLE "bookings"
            ADD "no_show_attendee" boolean NOT NULL DEFAULT false
        `);
    await queryRunner.query(`
            ALTER TABLE "bookings"
            ADD "no_show_host" boolean NOT NULL DEFAULT false
        `);
    await queryRunner.query(`
            CREATE INDEX "bookings_no_show_host_idx" ON "bookings" ("organization_id", "livemode", "starts_at")
            WHERE "no_show_host"
        `);
    await queryRunner.query(`
            CREATE INDEX "bookings_no_show_attendee_idx" ON "bookings" ("organization_id", "livemode", "starts_at")
            WHERE "no_show_attendee"
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            DROP INDEX "public"."bookings_no_show_attendee_idx"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."bookings_no_show_host_idx"
        `);
    await queryRunner.query(`
            ALTER TABLE "bookings" DROP COLUMN "no_show_host"
        `);
    await queryRunner.query(`
            ALTER TABLE "bookings" DROP COLUMN "no_show_attendee"
        `);
  }
}
