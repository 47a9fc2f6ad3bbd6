import { MigrationInterface, QueryRunner } from 'typeorm';

const INDEXES: Record<string, string> = {
  page: '',
  action: '"action", ',
  actor: '"actor_id", ',
  resource: '"resource_id", ',
  actor_action: '"actor_id", "action", ',
};

/**
 * Written by hand (TypeORM knows no `xid8`, so the column is not in the entity's metadata; see the entity). The audit
 * log is paged in the order its entries became visible (contract § 18 as amended): `tx_id`, the id of the transaction
 * that wrote the entry (`pg_current_xact_id()`, the default, so every insert leaves it to the database; the rows already
 * there get this migration's). The reader only shows entries below the oldest transaction of the database still
 * running, so an entry that commits late always sorts above everything already shown. Every page index walks
 * `tx_id DESC` before `occurred_at DESC, id DESC`.
 */
export class AuditSettlementOrder1795875272929 implements MigrationInterface {
  name = 'AuditSettlementOrder1795875272929';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "audit_entries" ADD "tx_id" xid8 NOT NULL DEFAULT pg_current_xact_id()`);
    for (const [name, leading] of Object.entries(INDEXES)) {
      await queryRunner.query(`DROP INDEX "public"."audit_entries_${name}_idx"`);
      await queryRunner.query(
        `CREATE INDEX "audit_entries_${name}_idx" ON "audit_entries" ("organization_id", ${leading}"tx_id" DESC, "occurred_at" DESC, "id" DESC)`,
      );
    }
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (const [name, leading] of Object.entries(INDEXES)) {
      await queryRunner.query(`DROP INDEX "public"."audit_entries_${name}_idx"`);
      await queryRunner.query(
        `CREATE INDEX "audit_entries_${name}_idx" ON "audit_entries" ("organization_id", ${leading}"occurred_at" DESC, "id" DESC)`,
      );
    }
    await queryRunner.query(`ALTER TABLE "audit_entries" DROP COLUMN "tx_id"`);
  }
}
