import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Reminders (api-rules.md § Reminders): the event type's list, and one due row per booking and reminder. Generated
 * from the entities, then reviewed: the generator's drops of the hand-made foreign keys are left out, and the
 * booking's own key is added by hand (a booking's rows go with it). The partial index holds only what is still to
 * send, so the sender's lookup stays one index probe however many bookings the table keeps; the index on `booking_id`
 * serves the cascade when bookings are deleted (an organization's deletion), which would otherwise scan the table once
 * per booking.
 */
export class BookingReminders1795676048865 implements MigrationInterface {
  name = 'BookingReminders1795676048865';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            ALTER TABLE "event_types"
            ADD "reminders" jsonb NOT NULL DEFAULT '[]'
        `);
    await queryRunner.query(`
            CREATE TABLE "booking_reminders" (
                "organization_id" text NOT NULL,
                "booking_id" text NOT NULL,
                "minutes_before" integer NOT NULL,
                "due_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                "sent_at" TIMESTAMP WITH TIME ZONE,
                "missed" boolean NOT NULL DEFAULT false,
                CONSTRAINT "booking_reminders_pkey" PRIMARY KEY ("organization_id", "booking_id", "minutes_before")
            )
        `);
    await queryRunner.query(`
            CREATE INDEX "booking_reminders_due_idx" ON "booking_reminders" ("due_at")
            WHERE "sent_at" IS NULL
                AND NOT "missed"
        `);
    await queryRunner.query(`
            CREATE INDEX "booking_reminders_booking_idx" ON "booking_reminders" ("booking_id")
        `);
    await queryRunner.query(`
            ALTER TABLE "booking_reminders" ADD CONSTRAINT "booking_reminders_booking_fk" FOREIGN KEY ("booking_id") REFERENCES "bookings"("id") ON DELETE CASCADE
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "booking_reminders"`);
    await queryRunner.query(`ALTER TABLE "event_types" DROP COLUMN "reminders"`);
  }
}
