import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The audit log (contract § 18): one row per change made through the API, written in the change's transaction and
 * never updated. Owned by the audit module. An organization's rows go with it (cascade); AUDIT_RETENTION_DAYS sweeps
 * the rest by `occurred_at`. Every filtered page is a keyset walk of one index, newest first, whose leading columns are
 * the organization and the filter (see docs/contributing/performance.md, bench/audit.bench.ts).
 */
export class AuditLog1795800000000 implements MigrationInterface {
  name = 'AuditLog1795800000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            CREATE TABLE "audit_entries" (
                "id" text NOT NULL,
                "organization_id" text NOT NULL,
                "occurred_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                "action" text NOT NULL,
                "actor_type" text NOT NULL,
                "actor_id" text,
                "actor_label" text,
                "resource_type" text NOT NULL,
                "resource_id" text,
                "request_id" text,
                "ip" text,
                "user_agent" text,
                "changes" jsonb,
                "details" jsonb,
                CONSTRAINT "PK_audit_entries" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`CREATE INDEX "audit_entries_page_idx" ON "audit_entries" ("organization_id", "occurred_at" DESC, "id" DESC)`);
    await queryRunner.query(
      `CREATE INDEX "audit_entries_action_idx" ON "audit_entries" ("organization_id", "action", "occurred_at" DESC, "id" DESC)`,
    );
    await queryRunner.query(
      `CREATE INDEX "audit_entries_actor_idx" ON "audit_entries" ("organization_id", "actor_id", "occurred_at" DESC, "id" DESC)`,
    );
    await queryRunner.query(
      `CREATE INDEX "audit_entries_resource_idx" ON "audit_entries" ("organization_id", "resource_id", "occurred_at" DESC, "id" DESC)`,
    );
    await queryRunner.query(`CREATE INDEX "audit_entries_retention_idx" ON "audit_entries" ("occurred_at")`);
    await queryRunner.query(`
            ALTER TABLE "audit_entries" ADD CONSTRAINT "audit_entries_organization_fk" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "audit_entries"`);
  }
}
