import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Reads from standbys (libs/database replica-reads.ts): each organization's last write position, the primary's WAL
 * insert LSN recorded after a write request's transactions committed; a standby serves the organization's reads only
 * once it has replayed past it. `*` holds the writes whose organization was not known at the door. One small row per
 * organization, updated by the write requests alone (no foreign key: bookkeeping of the database library).
 */
export class OrganizationWritePositions1795906000000 implements MigrationInterface {
  name = 'OrganizationWritePositions1795906000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE IF NOT EXISTS "organization_write_positions" ("organization_id" text PRIMARY KEY, "lsn" pg_lsn NOT NULL)`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE IF EXISTS "organization_write_positions"`);
  }
}
