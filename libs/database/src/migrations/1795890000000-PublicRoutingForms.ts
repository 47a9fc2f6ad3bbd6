import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Routing forms from the browser (contract § 22): a publishable key's `routing_form_ids` (null: every form of the
 * organization), and the per-visitor hourly limit of public responses (one row per response a visitor submitted
 * through a publishable key, counted per key and client address in the response's own transaction, as
 * visitor_bookings are). Owned by api-keys and routing-forms; rows older than the hour are swept by the
 * `visitor-responses-cleanup` job.
 */
export class PublicRoutingForms1795890000000 implements MigrationInterface {
  name = 'PublicRoutingForms1795890000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "api_keys" ADD "routing_form_ids" text array`);
    await queryRunner.query(`
            CREATE TABLE "visitor_responses" (
                "response_id" text NOT NULL,
                "organization_id" text NOT NULL,
                "api_key_id" text NOT NULL,
                "client_address" text NOT NULL,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                CONSTRAINT "PK_5222f8417cbf913154d3b8b6228" PRIMARY KEY ("response_id")
            )
        `);
    await queryRunner.query(`CREATE INDEX "visitor_responses_created_idx" ON "visitor_responses" ("created_at")`);
    await queryRunner.query(`
            CREATE INDEX "visitor_responses_visitor_created_idx" ON "visitor_responses" (
                "organization_id",
                "client_address",
                "created_at"
            )
        `);
    await queryRunner.query(`
            ALTER TABLE "visitor_responses" ADD CONSTRAINT "visitor_responses_organization_fk" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "visitor_responses"`);
    await queryRunner.query(`ALTER TABLE "api_keys" DROP COLUMN "routing_form_ids"`);
  }
}
