import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The reminder sender runs on LeaseQueue (docs/contributing/architecture.md § Background work): each due row gets a name for the
 * queue (`id`, drawn by the database, so every writer's INSERT stays as it is), its attempts, its last error and its
 * lease, with the partial index of leased rows the next wake-up reads. Existing rows take the defaults.
 */
export class ReminderLeaseQueue1795714333835 implements MigrationInterface {
  name = 'ReminderLeaseQueue1795714333835';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            ALTER TABLE "booking_reminders"
            ADD "id" text NOT NULL DEFAULT gen_random_uuid()::text
        `);
    await queryRunner.query(`
            ALTER TABLE "booking_reminders"
            ADD "attempts" integer NOT NULL DEFAULT '0'
        `);
    await queryRunner.query(`
            ALTER TABLE "booking_reminders"
            ADD "last_error" text
        `);
    await queryRunner.query(`
            ALTER TABLE "booking_reminders"
            ADD "locked_until" TIMESTAMP WITH TIME ZONE
        `);
    await queryRunner.query(`
            CREATE INDEX "booking_reminders_leased_idx" ON "booking_reminders" ("locked_until")
            WHERE "locked_until" IS NOT NULL
        `);
    await queryRunner.query(`
            CREATE UNIQUE INDEX "booking_reminders_id_key" ON "booking_reminders" ("id")
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            DROP INDEX "public"."booking_reminders_id_key"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."booking_reminders_leased_idx"
        `);
    await queryRunner.query(`
            ALTER TABLE "booking_reminders" DROP COLUMN "locked_until"
        `);
    await queryRunner.query(`
            ALTER TABLE "booking_reminders" DROP COLUMN "last_error"
        `);
    await queryRunner.query(`
            ALTER TABLE "booking_reminders" DROP COLUMN "attempts"
        `);
    await queryRunner.query(`
            ALTER TABLE "booking_reminders" DROP COLUMN "id"
        `);
  }
}
