import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Generated, then reviewed (the proposal to drop the cross-module foreign keys is removed, see the
 * docs/operating/upgrades.md). Members' outbound calendar feeds; a feed goes with its membership.
 */
export class BookingFeeds1795475605458 implements MigrationInterface {
  name = 'BookingFeeds1795475605458';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            CREATE TABLE "booking_feeds" (
                "member_id" text NOT NULL,
                "organization_id" text NOT NULL,
                "user_id" text NOT NULL,
                "version" integer NOT NULL,
                "token_hash" text NOT NULL,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                CONSTRAINT "PK_054b1914795cfed49b3a41c9a40" PRIMARY KEY ("member_id")
            )
        `);
    await queryRunner.query(`
            CREATE UNIQUE INDEX "booking_feeds_token_hash_key" ON "booking_feeds" ("token_hash")
        `);
    await queryRunner.query(`
            ALTER TABLE "booking_feeds"
            ADD CONSTRAINT "booking_feeds_member_fk" FOREIGN KEY ("member_id") REFERENCES "members"("id") ON DELETE CASCADE
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "booking_feeds"`);
  }
}
