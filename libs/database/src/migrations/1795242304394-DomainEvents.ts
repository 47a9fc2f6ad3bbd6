import { MigrationInterface, QueryRunner } from 'typeorm';

export class DomainEvents1795242304394 implements MigrationInterface {
  name = 'DomainEvents1795242304394';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            CREATE TABLE "domain_events" (
                "id" text NOT NULL,
                "organization_id" text NOT NULL,
                "livemode" boolean NOT NULL,
                "type" text NOT NULL,
                "data" jsonb NOT NULL,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                "dispatched_at" TIMESTAMP WITH TIME ZONE,
                CONSTRAINT "PK_66e0920a32dda3a89b46ee7a981" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE INDEX "domain_events_undispatched_idx" ON "domain_events" ("created_at")
            WHERE dispatched_at IS NULL
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            DROP INDEX "public"."domain_events_undispatched_idx"
        `);
    await queryRunner.query(`
            DROP TABLE "domain_events"
        `);
  }
}
