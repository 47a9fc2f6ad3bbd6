import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Generated, then reviewed (the proposals to drop cross-module foreign keys, indexes and constraints the entities do
 * not declare, and to rewrite unrelated defaults, are removed, see docs/operating/upgrades.md). Calendar write-backs of one booking and
 * host are carried out in the order they were decided (contract § 18: the host's calendar ends with the erased event
 * whatever order the workers finish in): `seq`, drawn from a sequence when the row is inserted. The rows already there
 * are numbered in the order they were carried out until now (created_at, id), before the sequence goes on from there.
 */
export class CalendarWriteOrder1795874356926 implements MigrationInterface {
  name = 'CalendarWriteOrder1795874356926';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "calendar_writes" ADD "seq" BIGSERIAL NOT NULL`);
    await queryRunner.query(
      `UPDATE "calendar_writes" w SET "seq" = o.n
         FROM (SELECT id, row_number() OVER (ORDER BY created_at, id) AS n FROM "calendar_writes") o
        WHERE w.id = o.id`,
    );
    await queryRunner.query(
      `SELECT setval(pg_get_serial_sequence('"calendar_writes"', 'seq'), GREATEST((SELECT max("seq") FROM "calendar_writes"), 1))`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "calendar_writes" DROP COLUMN "seq"`);
  }
}
