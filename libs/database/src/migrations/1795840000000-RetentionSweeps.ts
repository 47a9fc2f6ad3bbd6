import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Generated, then reviewed (the proposals to drop cross-module foreign keys, indexes and constraints the entities do
 * not declare are removed, see docs/operating/upgrades.md). Keeping only what is needed (contract § 18, issue 37): the session-cleanup
 * sweep finds sessions that ended (expired, or revoked) by the first two, and the calendar-write-retention sweep finds
 * finished write-backs that still hold a body by the third (a cleared row leaves that partial index).
 */
export class RetentionSweeps1795840000000 implements MigrationInterface {
  name = 'RetentionSweeps1795840000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX "sessions_expires_at_idx" ON "sessions" ("expires_at")`);
    await queryRunner.query(`CREATE INDEX "sessions_revoked_at_idx" ON "sessions" ("revoked_at") WHERE "revoked_at" IS NOT NULL`);
    await queryRunner.query(
      `CREATE INDEX "calendar_writes_finished_body_idx" ON "calendar_writes" ("created_at") WHERE "ics" IS NOT NULL AND "status" IN ('done', 'failed')`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."calendar_writes_finished_body_idx"`);
    await queryRunner.query(`DROP INDEX "public"."sessions_revoked_at_idx"`);
    await queryRunner.query(`DROP INDEX "public"."sessions_expires_at_idx"`);
  }
}
