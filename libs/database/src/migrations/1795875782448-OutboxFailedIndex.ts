import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Generated, then reviewed (the proposals to drop cross-module foreign keys, indexes and constraints the entities do
 * not declare are removed, see docs/operating/upgrades.md). The parked events of the outbox, counted on every metrics scrape
 * (`queue_jobs{queue="outbox",state="failed"}`, contract § 19): a partial index holding only those few rows, as the
 * other queues' failed rows have (QueueFailedIndexes), so the count never scans the dispatched history. The outbox's
 * due, scheduled and oldest-due parts read domain_events_waiting_idx (OutboxLeaseQueue).
 */
export class OutboxFailedIndex1795875782448 implements MigrationInterface {
  name = 'OutboxFailedIndex1795875782448';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            CREATE INDEX "domain_events_failed_idx" ON "domain_events" ("failed_at")
            WHERE "failed_at" IS NOT NULL
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            DROP INDEX "public"."domain_events_failed_idx"
        `);
  }
}
