import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The outbox dispatcher runs on LeaseQueue (docs/contributing/architecture.md § Background work): each event gets when it is due
 * (`due_at`, the database's now() when written, so every writer's INSERT stays as it is; a retry moves it), its
 * attempts, its last error, when it was parked (`failed_at`: its retries spent) and its lease. The waiting events'
 * index orders them as claims take them and as the next wake-up reads them; a partial index of leased rows serves the
 * wake-up's other half. Existing rows take the defaults (due at once).
 */
export class OutboxLeaseQueue1795719072494 implements MigrationInterface {
  name = 'OutboxLeaseQueue1795719072494';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            DROP INDEX "public"."domain_events_undispatched_idx"
        `);
    await queryRunner.query(`
            ALTER TABLE "domain_events"
            ADD "due_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now()
        `);
    await queryRunner.query(`
            ALTER TABLE "domain_events"
            ADD "attempts" integer NOT NULL DEFAULT '0'
        `);
    await queryRunner.query(`
            ALTER TABLE "domain_events"
            ADD "last_error" text
        `);
    await queryRunner.query(`
            ALTER TABLE "domain_events"
            ADD "failed_at" TIMESTAMP WITH TIME ZONE
        `);
    await queryRunner.query(`
            ALTER TABLE "domain_events"
            ADD "locked_until" TIMESTAMP WITH TIME ZONE
        `);
    await queryRunner.query(`
            CREATE INDEX "domain_events_waiting_idx" ON "domain_events" ("due_at", "created_at", "id")
            WHERE dispatched_at IS NULL AND failed_at IS NULL
        `);
    await queryRunner.query(`
            CREATE INDEX "domain_events_leased_idx" ON "domain_events" ("locked_until")
            WHERE "locked_until" IS NOT NULL
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            DROP INDEX "public"."domain_events_leased_idx"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."domain_events_waiting_idx"
        `);
    await queryRunner.query(`
            ALTER TABLE "domain_events" DROP COLUMN "locked_until"
        `);
    await queryRunner.query(`
            ALTER TABLE "domain_events" DROP COLUMN "failed_at"
        `);
    await queryRunner.query(`
            ALTER TABLE "domain_events" DROP COLUMN "last_error"
        `);
    await queryRunner.query(`
            ALTER TABLE "domain_events" DROP COLUMN "attempts"
        `);
    await queryRunner.query(`
            ALTER TABLE "domain_events" DROP COLUMN "due_at"
        `);
    await queryRunner.query(`
            CREATE INDEX "domain_events_undispatched_idx" ON "domain_events" ("created_at")
            WHERE dispatched_at IS NULL
        `);
  }
}
