import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Generated, then reviewed (the proposal to drop the cross-module foreign keys is removed, see the
 * docs/operating/upgrades.md). The outbox of calendar write-backs; a write goes with its organization.
 */
export class CalendarWrites1795475408330 implements MigrationInterface {
  name = 'CalendarWrites1795475408330';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            CREATE TABLE "calendar_writes" (
                "id" text NOT NULL,
                "organization_id" text NOT NULL,
                "booking_id" text NOT NULL,
                "user_id" text NOT NULL,
                "action" text NOT NULL,
                "ics" text,
                "status" text NOT NULL,
                "attempts" integer NOT NULL DEFAULT '0',
                "next_attempt_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                "locked_until" TIMESTAMP WITH TIME ZONE,
                "last_error" text,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                CONSTRAINT "PK_67971f35bf58521bbe8d45bb179" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE INDEX "calendar_writes_organization_booking_idx" ON "calendar_writes" ("organization_id", "booking_id")
        `);
    await queryRunner.query(`
            CREATE INDEX "calendar_writes_due_idx" ON "calendar_writes" ("status", "next_attempt_at")
        `);
    await queryRunner.query(`
            ALTER TABLE "calendar_writes"
            ADD CONSTRAINT "calendar_writes_organization_fk" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "calendar_writes"`);
  }
}
