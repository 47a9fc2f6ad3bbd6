import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Routing forms and their responses (contract § 22), owned by the routing-forms module. A form's fields, routes and
 * fallback are JSON checked at save; a response keeps its answers and route as submitted. Deleting the organization
 * deletes both; deleting a form deletes its responses.
 */
export class RoutingForms1795880000000 implements MigrationInterface {
  name = 'RoutingForms1795880000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            CREATE TABLE "routing_forms" (
                "id" text NOT NULL,
                "organization_id" text NOT NULL,
                "name" text NOT NULL,
                "fields" jsonb NOT NULL,
                "routes" jsonb NOT NULL,
                "fallback" jsonb NOT NULL,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                CONSTRAINT "PK_routing_forms" PRIMARY KEY ("id"),
                CONSTRAINT "routing_forms_organization_fk" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE
            )
        `);
    await queryRunner.query(`CREATE INDEX "routing_forms_organization_created_idx" ON "routing_forms" ("organization_id", "created_at")`);
    await queryRunner.query(`
            CREATE TABLE "routing_responses" (
                "id" text NOT NULL,
                "organization_id" text NOT NULL,
                "livemode" boolean NOT NULL,
                "routing_form_id" text NOT NULL,
                "answers" jsonb NOT NULL,
                "route" jsonb NOT NULL,
                "matched_route" integer,
                "booking_id" text,
                "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                CONSTRAINT "PK_routing_responses" PRIMARY KEY ("id"),
                CONSTRAINT "routing_responses_organization_fk" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE,
                CONSTRAINT "routing_responses_form_fk" FOREIGN KEY ("routing_form_id") REFERENCES "routing_forms"("id") ON DELETE CASCADE
            )
        `);
    await queryRunner.query(
      `CREATE INDEX "routing_responses_form_created_idx" ON "routing_responses" ("organization_id", "routing_form_id", "created_at")`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "routing_responses"`);
    await queryRunner.query(`DROP TABLE "routing_forms"`);
  }
}
