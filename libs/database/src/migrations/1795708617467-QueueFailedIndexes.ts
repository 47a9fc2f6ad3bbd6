import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The failed rows of the mail, webhook and reminder queues, counted on every metrics scrape (`queue_jobs{state="failed"}`,
 * contract § 19): a partial index each, holding only those few rows, so the count never scans the sent history. The
 * generator's drops of the foreign keys kept in earlier migrations are left out, as in every migration here.
 */
export class QueueFailedIndexes1795708617467 implements MigrationInterface {
  name = 'QueueFailedIndexes1795708617467';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            CREATE INDEX "booking_reminders_missed_idx" ON "booking_reminders" ("due_at")
            WHERE "missed"
        `);
    await queryRunner.query(`
            CREATE INDEX "mail_outbox_failed_idx" ON "mail_outbox" ("next_attempt_at")
            WHERE "status" = 'failed'
        `);
    await queryRunner.query(`
            CREATE INDEX "webhook_deliveries_failed_idx" ON "webhook_deliveries" ("next_attempt_at")
            WHERE "status" = 'failed'
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            DROP INDEX "public"."webhook_deliveries_failed_idx"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."mail_outbox_failed_idx"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."booking_reminders_missed_idx"
        `);
  }
}
