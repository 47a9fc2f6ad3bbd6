import { MigrationInterface, QueryRunner } from 'typeorm';

export class Idempotency1795243428453 implements MigrationInterface {
  name = 'Idempotency1795243428453';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            CREATE TABLE "idempotency_keys" (
                "organization_id" text NOT NULL,
                "livemode" boolean NOT NULL,
                "key" text NOT NULL,
                "fingerprint" text NOT NULL,
                "state" text NOT NULL,
                "response_status" integer,
                "response_body" jsonb,
                "locked_until" TIMESTAMP WITH TIME ZONE NOT NULL,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                CONSTRAINT "PK_9672c1161a3497dca422ed2eb81" PRIMARY KEY ("organization_id", "livemode", "key")
            )
        `);
    await queryRunner.query(`
            CREATE INDEX "idempotency_keys_expires_idx" ON "idempotency_keys" ("expires_at")
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            DROP INDEX "public"."idempotency_keys_expires_idx"
        `);
    await queryRunner.query(`
            DROP TABLE "idempotency_keys"
        `);
  }
}
