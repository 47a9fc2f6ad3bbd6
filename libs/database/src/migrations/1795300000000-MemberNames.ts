import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Data only. Members no longer join users for their names: the team module keeps an active member's
 * names equal to its user's (the auth module tells it on every rename). This copies the names users
 * have now onto their memberships, once.
 */
export class MemberNames1795300000000 implements MigrationInterface {
  name = 'MemberNames1795300000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            UPDATE "members" m SET "first_name" = u."first_name", "last_name" = u."last_name"
              FROM "users" u
             WHERE u."id" = m."user_id"
               AND (m."first_name" IS DISTINCT FROM u."first_name" OR m."last_name" IS DISTINCT FROM u."last_name")
        `);
  }

  public async down(): Promise<void> {
    // Nothing to undo: the names were already what GET showed.
  }
}
