import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One value sealed with the ENCRYPTION_KEY that set the database up: an instance whose key cannot open it
 * refuses to start (issue 29) instead of failing every secret it would later read. The service's own row,
 * not an organization's: the one table with no organization key (it holds nothing of any customer's).
 */
export class EncryptionKeyCheck1795500400000 implements MigrationInterface {
  name = 'EncryptionKeyCheck1795500400000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            CREATE TABLE "encryption_key_check" (
                "id" smallint NOT NULL,
                "sealed" text NOT NULL,
                "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                CONSTRAINT "PK_encryption_key_check" PRIMARY KEY ("id"),
                CONSTRAINT "encryption_key_check_one_row" CHECK ("id" = 1)
            )
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "encryption_key_check"`);
  }
}
