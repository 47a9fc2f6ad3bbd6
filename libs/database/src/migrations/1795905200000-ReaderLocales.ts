import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Notifications in the reader's language (contract § 23): the attendee's locale on each booking (as the attendee gave
 * it, canonical BCP 47; null: the organization's default), each member's own locale (null: the organization's
 * default), and the organization's `default_locale` (one of the catalogs' locales, `en` unless set).
 */
export class ReaderLocales1795905200000 implements MigrationInterface {
  name = 'ReaderLocales1795905200000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "bookings" ADD "attendee_locale" text`);
    await queryRunner.query(`ALTER TABLE "members" ADD "locale" text`);
    await queryRunner.query(`ALTER TABLE "organizations" ADD "default_locale" text NOT NULL DEFAULT 'en'`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "organizations" DROP COLUMN "default_locale"`);
    await queryRunner.query(`ALTER TABLE "members" DROP COLUMN "locale"`);
    await queryRunner.query(`ALTER TABLE "bookings" DROP COLUMN "attendee_locale"`);
  }
}
