import { MigrationInterface, QueryRunner } from 'typeorm';

/** Webhook endpoints, their deliveries (a leased work queue) and the log of every attempt. */
export class Webhooks1795243016760 implements MigrationInterface {
  name = 'Webhooks1795243016760';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            CREATE TABLE "webhooks" (
                "id" text NOT NULL,
                "organization_id" text NOT NULL,
                "livemode" boolean NOT NULL,
                "url" text NOT NULL,
                "events" text array NOT NULL,
                "description" text,
                "active" boolean NOT NULL,
                "secret_ciphertext" text NOT NULL,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                CONSTRAINT "PK_9e8795cfc899ab7bdaa831e8527" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE INDEX "webhooks_organization_livemode_created_idx" ON "webhooks" ("organization_id", "livemode", "created_at")
        `);
    await queryRunner.query(`
            CREATE TABLE "webhook_deliveries" (
                "id" text NOT NULL,
                "webhook_id" text NOT NULL,
                "organization_id" text NOT NULL,
                "event_id" text NOT NULL,
                "event_type" text NOT NULL,
                "body" text NOT NULL,
                "status" text NOT NULL DEFAULT 'pending',
                "attempts" integer NOT NULL DEFAULT '0',
                "max_attempts" integer NOT NULL,
                "next_attempt_at" TIMESTAMP WITH TIME ZONE DEFAULT now(),
                "locked_until" TIMESTAMP WITH TIME ZONE,
                "last_attempt_at" TIMESTAMP WITH TIME ZONE,
                "response_status" integer,
                "last_error" text,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                CONSTRAINT "webhook_deliveries_status_check" CHECK ("status" IN ('pending', 'succeeded', 'failed')),
                CONSTRAINT "PK_535dd409947fb6d8fc6dfc0112a" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE UNIQUE INDEX "webhook_deliveries_webhook_event_key" ON "webhook_deliveries" ("webhook_id", "event_id")
        `);
    await queryRunner.query(`
            CREATE INDEX "webhook_deliveries_webhook_created_idx" ON "webhook_deliveries" ("webhook_id", "created_at")
        `);
    await queryRunner.query(`
            CREATE INDEX "webhook_deliveries_due_idx" ON "webhook_deliveries" ("next_attempt_at")
            WHERE "status" = 'pending'
        `);
    await queryRunner.query(`
            CREATE TABLE "webhook_attempts" (
                "delivery_id" text NOT NULL,
                "attempt" integer NOT NULL,
                "organization_id" text NOT NULL,
                "started_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                "duration_ms" integer NOT NULL,
                "response_status" integer,
                "error" text,
                CONSTRAINT "PK_5ec32a71f45112dcc2ef75373a6" PRIMARY KEY ("delivery_id", "attempt")
            )
        `);
    await queryRunner.query(`
            ALTER TABLE "webhooks"
            ADD CONSTRAINT "FK_1263da9f2a66fe09006bd86130e" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
    await queryRunner.query(`
            ALTER TABLE "webhook_deliveries"
            ADD CONSTRAINT "FK_a0286aeb96db651efd1ae2966f2" FOREIGN KEY ("webhook_id") REFERENCES "webhooks"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
    await queryRunner.query(`
            ALTER TABLE "webhook_attempts"
            ADD CONSTRAINT "FK_0d56d91d61b827bb2079c256538" FOREIGN KEY ("delivery_id") REFERENCES "webhook_deliveries"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            ALTER TABLE "webhook_attempts" DROP CONSTRAINT "FK_0d56d91d61b827bb2079c256538"
        `);
    await queryRunner.query(`
            ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "FK_a0286aeb96db651efd1ae2966f2"
        `);
    await queryRunner.query(`
            ALTER TABLE "webhooks" DROP CONSTRAINT "FK_1263da9f2a66fe09006bd86130e"
        `);
    await queryRunner.query(`
            DROP TABLE "webhook_attempts"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."webhook_deliveries_due_idx"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."webhook_deliveries_webhook_created_idx"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."webhook_deliveries_webhook_event_key"
        `);
    await queryRunner.query(`
            DROP TABLE "webhook_deliveries"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."webhooks_organization_livemode_created_idx"
        `);
    await queryRunner.query(`
            DROP TABLE "webhooks"
        `);
  }
}
