import { MigrationInterface, QueryRunner } from 'typeorm';

/** btree_gist lets bookings combine `=` on host and `&&` on time ranges in one exclusion constraint. */
export class Init1763712000000 implements MigrationInterface {
  name = 'Init1763712000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE EXTENSION IF NOT EXISTS btree_gist`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP EXTENSION IF EXISTS btree_gist`);
  }
}
