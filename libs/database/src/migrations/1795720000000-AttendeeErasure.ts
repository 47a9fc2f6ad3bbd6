import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Attendee erasure and keeping only what is needed (contract § 18, docs/operating/reliability.md § Personal data):
 * - an erased booking has no attendee timezone, nor its series (`timezone` becomes nullable on both);
 * - a mail names the records it tells of (`about`: booking ids), so erasing a booking finds the hosts' mails too;
 * - erasure finds an organization's bookings by attendee email case-insensitively through an index;
 * - the periodic sweeps find ended holds and login failures past their window through an index.
 */
export class AttendeeErasure1795720000000 implements MigrationInterface {
  name = 'AttendeeErasure1795720000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            ALTER TABLE "bookings"
            ALTER COLUMN "timezone" DROP NOT NULL
        `);
    await queryRunner.query(`
            ALTER TABLE "booking_series"
            ALTER COLUMN "timezone" DROP NOT NULL
        `);
    await queryRunner.query(`
            ALTER TABLE "mail_outbox"
            ADD "about" text array NOT NULL DEFAULT '{}'
        `);
    await queryRunner.query(`
            CREATE INDEX "bookings_organization_attendee_email_idx" ON "bookings" ("organization_id", lower("attendee_email"))
        `);
    await queryRunner.query(`
            CREATE INDEX "holds_expires_idx" ON "holds" ("expires_at")
        `);
    await queryRunner.query(`
            CREATE INDEX "login_failures_failed_at_idx" ON "login_failures" ("failed_at")
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            DROP INDEX "public"."login_failures_failed_at_idx"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."holds_expires_idx"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."bookings_organization_attendee_email_idx"
        `);
    await queryRunner.query(`
            ALTER TABLE "mail_outbox" DROP COLUMN "about"
        `);
    await queryRunner.query(`
            UPDATE "booking_series" SET "timezone" = 'UTC' WHERE "timezone" IS NULL
        `);
    await queryRunner.query(`
            ALTER TABLE "booking_series"
            ALTER COLUMN "timezone" SET NOT NULL
        `);
    await queryRunner.query(`
            UPDATE "bookings" SET "timezone" = 'UTC' WHERE "timezone" IS NULL
        `);
    await queryRunner.query(`
            ALTER TABLE "bookings"
            ALTER COLUMN "timezone" SET NOT NULL
        `);
  }
}
