import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Generated, then reviewed (the generator's proposal to drop the cross-module foreign keys is removed,
 * see docs/operating/upgrades.md). A running request now holds its Idempotency-Key with a transaction-scoped advisory
 * lock, not a leased row, so a request that dies with its connection leaves nothing behind: the table
 * keeps finished responses only. Rows of requests that were running are dropped first.
 */
export class IdempotencyLocks1795473026388 implements MigrationInterface {
  name = 'IdempotencyLocks1795473026388';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            DELETE FROM "idempotency_keys" WHERE "state" <> 'done' OR "response_status" IS NULL
        `);
    await queryRunner.query(`
            ALTER TABLE "idempotency_keys" DROP COLUMN "locked_until"
        `);
    await queryRunner.query(`
            ALTER TABLE "idempotency_keys" DROP COLUMN "state"
        `);
    await queryRunner.query(`
            ALTER TABLE "idempotency_keys"
            ALTER COLUMN "response_status"
            SET NOT NULL
        `);
    await queryRunner.query(`
            ALTER TABLE "idempotency_keys"
            ALTER COLUMN "response_body"
            SET NOT NULL
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            ALTER TABLE "idempotency_keys"
            ALTER COLUMN "response_body" DROP NOT NULL
        `);
    await queryRunner.query(`
            ALTER TABLE "idempotency_keys"
            ALTER COLUMN "response_status" DROP NOT NULL
        `);
    await queryRunner.query(`
            ALTER TABLE "idempotency_keys"
            ADD "state" text NOT NULL DEFAULT 'done'
        `);
    await queryRunner.query(`
            ALTER TABLE "idempotency_keys"
            ADD "locked_until" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now()
        `);
  }
}
