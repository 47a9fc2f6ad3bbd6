import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The per-visitor hourly limit of public bookings (api-rules.md § Browser booking): one row per booking a visitor
 * made through a publishable key, counted per key and client address in the booking's own transaction. Owned by
 * the bookings module; rows older than the hour are swept by the `visitor-bookings-cleanup` job.
 */
export class VisitorBookings1795699069256 implements MigrationInterface {
  name = 'VisitorBookings1795699069256';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            CREATE TABLE "visitor_bookings" (
                "booking_id" text NOT NULL,
                "organization_id" text NOT NULL,
                "api_key_id" text NOT NULL,
                "client_address" text NOT NULL,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                CONSTRAINT "PK_ace1c69b1a98d95dacd515bee44" PRIMARY KEY ("booking_id")
            )
        `);
    await queryRunner.query(`CREATE INDEX "visitor_bookings_created_idx" ON "visitor_bookings" ("created_at")`);
    await queryRunner.query(`
            CREATE INDEX "visitor_bookings_visitor_created_idx" ON "visitor_bookings" (
                "organization_id",
                "api_key_id",
                "client_address",
                "created_at"
            )
        `);
    await queryRunner.query(`
            ALTER TABLE "visitor_bookings" ADD CONSTRAINT "visitor_bookings_organization_fk" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "visitor_bookings"`);
  }
}
