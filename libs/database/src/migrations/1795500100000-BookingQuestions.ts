import { MigrationInterface, QueryRunner } from 'typeorm';

/** Booking questions (api-rules.md § Browser booking): the event type's form, and each booking's answers as asked. */
export class BookingQuestions1795500100000 implements MigrationInterface {
  name = 'BookingQuestions1795500100000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "event_types" ADD "questions" jsonb NOT NULL DEFAULT '[]'`);
    await queryRunner.query(`ALTER TABLE "bookings" ADD "answers" jsonb NOT NULL DEFAULT '[]'`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "bookings" DROP COLUMN "answers"`);
    await queryRunner.query(`ALTER TABLE "event_types" DROP COLUMN "questions"`);
  }
}
