import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Publishable keys (api-rules.md § Browser booking): a kind of API key that is safe in a web page. It is public by design,
 * so it is kept as it is (`publishable_key`) besides its hash (the lookup stays one unique-index probe), with
 * the origins it answers and the event types it may book (null: every active one).
 */
export class PublishableKeys1795500200000 implements MigrationInterface {
  name = 'PublishableKeys1795500200000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "api_keys" ADD "kind" text NOT NULL DEFAULT 'secret'`);
    await queryRunner.query(`ALTER TABLE "api_keys" ADD "publishable_key" text`);
    await queryRunner.query(`ALTER TABLE "api_keys" ADD "allowed_origins" text array`);
    await queryRunner.query(`ALTER TABLE "api_keys" ADD "event_type_ids" text array`);
    await queryRunner.query(
      `ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_publishable_fields" CHECK (("kind" = 'publishable') = ("publishable_key" IS NOT NULL AND "allowed_origins" IS NOT NULL))`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "api_keys" DROP CONSTRAINT "api_keys_publishable_fields"`);
    await queryRunner.query(`ALTER TABLE "api_keys" DROP COLUMN "event_type_ids"`);
    await queryRunner.query(`ALTER TABLE "api_keys" DROP COLUMN "allowed_origins"`);
    await queryRunner.query(`ALTER TABLE "api_keys" DROP COLUMN "publishable_key"`);
    await queryRunner.query(`ALTER TABLE "api_keys" DROP COLUMN "kind"`);
  }
}
