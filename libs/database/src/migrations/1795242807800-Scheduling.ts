import { MigrationInterface, QueryRunner } from 'typeorm';

export class Scheduling1795242807800 implements MigrationInterface {
  name = 'Scheduling1795242807800';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            CREATE TABLE "date_overrides" (
                "id" text NOT NULL,
                "organization_id" text NOT NULL,
                "member_id" text NOT NULL,
                "user_id" text NOT NULL,
                "date" date NOT NULL,
                "type" text NOT NULL,
                "reason" text,
                "slots" jsonb NOT NULL,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                CONSTRAINT "PK_c5103765e8bba8643fdff95c82b" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE INDEX "date_overrides_organization_user_date_idx" ON "date_overrides" ("organization_id", "user_id", "date")
        `);
    await queryRunner.query(`
            CREATE UNIQUE INDEX "date_overrides_member_date_key" ON "date_overrides" ("member_id", "date")
        `);
    await queryRunner.query(`
            CREATE TABLE "weekly_schedules" (
                "id" text NOT NULL,
                "organization_id" text NOT NULL,
                "member_id" text NOT NULL,
                "user_id" text NOT NULL,
                "timezone" text NOT NULL,
                "days" jsonb NOT NULL,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                CONSTRAINT "PK_c14aa04ae270430a6eb8444108c" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE UNIQUE INDEX "weekly_schedules_organization_user_key" ON "weekly_schedules" ("organization_id", "user_id")
        `);
    await queryRunner.query(`
            CREATE UNIQUE INDEX "weekly_schedules_member_key" ON "weekly_schedules" ("member_id")
        `);
    await queryRunner.query(`
            CREATE TABLE "event_types" (
                "id" text NOT NULL,
                "organization_id" text NOT NULL,
                "title" text NOT NULL,
                "slug" text NOT NULL,
                "description" text,
                "duration_minutes" integer NOT NULL,
                "location_type" text,
                "location" text,
                "buffer_before_minutes" integer NOT NULL DEFAULT '0',
                "buffer_after_minutes" integer NOT NULL DEFAULT '0',
                "minimum_notice_hours" double precision NOT NULL DEFAULT '0',
                "booking_window_days" integer NOT NULL DEFAULT '60',
                "max_bookings_per_day" integer,
                "slot_interval_minutes" integer,
                "scheduling_type" text NOT NULL,
                "requires_confirmation" boolean NOT NULL DEFAULT false,
                "is_active" boolean NOT NULL DEFAULT true,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                CONSTRAINT "PK_ffe6b2d60596409fb08fb13830d" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE INDEX "event_types_organization_active_created_idx" ON "event_types" ("organization_id", "is_active", "created_at")
        `);
    await queryRunner.query(`
            CREATE UNIQUE INDEX "event_types_organization_slug_active_key" ON "event_types" ("organization_id", "slug")
            WHERE is_active
        `);
    await queryRunner.query(`
            CREATE TABLE "event_type_hosts" (
                "event_type_id" text NOT NULL,
                "member_id" text NOT NULL,
                "user_id" text NOT NULL,
                "position" integer NOT NULL,
                CONSTRAINT "PK_1b4c682a148c56f099d76945bca" PRIMARY KEY ("event_type_id", "member_id")
            )
        `);
    await queryRunner.query(`
            CREATE INDEX "event_type_hosts_member_idx" ON "event_type_hosts" ("member_id")
        `);
    await queryRunner.query(`
            CREATE TABLE "bookings" (
                "id" text NOT NULL,
                "organization_id" text NOT NULL,
                "event_type_id" text NOT NULL,
                "livemode" boolean NOT NULL,
                "status" text NOT NULL,
                "starts_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                "ends_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                "host_user_id" text NOT NULL,
                "attendee_email" text NOT NULL,
                "attendee_first_name" text,
                "attendee_last_name" text,
                "attendee_phone" text,
                "timezone" text NOT NULL,
                "location_type" text,
                "location" text,
                "notes" text,
                "metadata" jsonb NOT NULL DEFAULT '{}',
                "buffer_before_minutes" integer NOT NULL DEFAULT '0',
                "buffer_after_minutes" integer NOT NULL DEFAULT '0',
                "confirmation_token_hash" text NOT NULL,
                "cancelled_at" TIMESTAMP WITH TIME ZONE,
                "cancellation_reason" text,
                "cancelled_by" text,
                "previous_booking_id" text,
                "rescheduled_to_booking_id" text,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                CONSTRAINT "PK_bee6805982cc1e248e94ce94957" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE INDEX "bookings_event_type_status_idx" ON "bookings" ("event_type_id", "status")
        `);
    await queryRunner.query(`
            CREATE INDEX "bookings_organization_livemode_starts_idx" ON "bookings" ("organization_id", "livemode", "starts_at", "id")
        `);
    await queryRunner.query(`
            CREATE TABLE "booking_hosts" (
                "booking_id" text NOT NULL,
                "host_user_id" text NOT NULL,
                "organization_id" text NOT NULL,
                "event_type_id" text NOT NULL,
                "livemode" boolean NOT NULL,
                "status" text NOT NULL,
                "during" tstzrange NOT NULL,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                CONSTRAINT "booking_hosts_no_overlap" EXCLUDE USING gist (
                    "host_user_id" WITH =,
                    "livemode" WITH =,
                    "during" WITH &&
                )
                WHERE ("status" IN ('confirmed', 'pending')),
                    CONSTRAINT "PK_21d58d59bcd48f11a49646288bb" PRIMARY KEY ("booking_id", "host_user_id")
            )
        `);
    await queryRunner.query(`
            CREATE INDEX "booking_hosts_event_type_host_idx" ON "booking_hosts" ("event_type_id", "host_user_id", "created_at")
        `);
    await queryRunner.query(`
            ALTER TABLE "date_overrides"
            ADD CONSTRAINT "FK_0f611521933da8e84601c741e42" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
    await queryRunner.query(`
            ALTER TABLE "date_overrides"
            ADD CONSTRAINT "FK_770dcb5cd72e6eb872859bb774b" FOREIGN KEY ("member_id") REFERENCES "members"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
    await queryRunner.query(`
            ALTER TABLE "weekly_schedules"
            ADD CONSTRAINT "FK_318612dfa58f4fab835dad31aad" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
    await queryRunner.query(`
            ALTER TABLE "weekly_schedules"
            ADD CONSTRAINT "FK_9211c8820949f99d2049ce6e0c8" FOREIGN KEY ("member_id") REFERENCES "members"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
    await queryRunner.query(`
            ALTER TABLE "event_types"
            ADD CONSTRAINT "FK_4fc611ba80a45b033e08b873966" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
    await queryRunner.query(`
            ALTER TABLE "event_type_hosts"
            ADD CONSTRAINT "FK_ece345d237a680f46a198956e99" FOREIGN KEY ("event_type_id") REFERENCES "event_types"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
    await queryRunner.query(`
            ALTER TABLE "event_type_hosts"
            ADD CONSTRAINT "FK_56adac4d7c3f2d39c48fded4a95" FOREIGN KEY ("member_id") REFERENCES "members"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
    await queryRunner.query(`
            ALTER TABLE "bookings"
            ADD CONSTRAINT "FK_1b3f0fcfa5c68dffbfd47cbb103" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
    await queryRunner.query(`
            ALTER TABLE "bookings"
            ADD CONSTRAINT "FK_ce05046ef3b64833efd89dfdf41" FOREIGN KEY ("event_type_id") REFERENCES "event_types"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
    await queryRunner.query(`
            ALTER TABLE "booking_hosts"
            ADD CONSTRAINT "FK_e1abb64a613597a8c1d039ada28" FOREIGN KEY ("booking_id") REFERENCES "bookings"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            ALTER TABLE "booking_hosts" DROP CONSTRAINT "FK_e1abb64a613597a8c1d039ada28"
        `);
    await queryRunner.query(`
            ALTER TABLE "bookings" DROP CONSTRAINT "FK_ce05046ef3b64833efd89dfdf41"
        `);
    await queryRunner.query(`
            ALTER TABLE "bookings" DROP CONSTRAINT "FK_1b3f0fcfa5c68dffbfd47cbb103"
        `);
    await queryRunner.query(`
            ALTER TABLE "event_type_hosts" DROP CONSTRAINT "FK_56adac4d7c3f2d39c48fded4a95"
        `);
    await queryRunner.query(`
            ALTER TABLE "event_type_hosts" DROP CONSTRAINT "FK_ece345d237a680f46a198956e99"
        `);
    await queryRunner.query(`
            ALTER TABLE "event_types" DROP CONSTRAINT "FK_4fc611ba80a45b033e08b873966"
        `);
    await queryRunner.query(`
            ALTER TABLE "weekly_schedules" DROP CONSTRAINT "FK_9211c8820949f99d2049ce6e0c8"
        `);
    await queryRunner.query(`
            ALTER TABLE "weekly_schedules" DROP CONSTRAINT "FK_318612dfa58f4fab835dad31aad"
        `);
    await queryRunner.query(`
            ALTER TABLE "date_overrides" DROP CONSTRAINT "FK_770dcb5cd72e6eb872859bb774b"
        `);
    await queryRunner.query(`
            ALTER TABLE "date_overrides" DROP CONSTRAINT "FK_0f611521933da8e84601c741e42"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."booking_hosts_event_type_host_idx"
        `);
    await queryRunner.query(`
            DROP TABLE "booking_hosts"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."bookings_organization_livemode_starts_idx"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."bookings_event_type_status_idx"
        `);
    await queryRunner.query(`
            DROP TABLE "bookings"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."event_type_hosts_member_idx"
        `);
    await queryRunner.query(`
            DROP TABLE "event_type_hosts"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."event_types_organization_slug_active_key"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."event_types_organization_active_created_idx"
        `);
    await queryRunner.query(`
            DROP TABLE "event_types"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."weekly_schedules_member_key"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."weekly_schedules_organization_user_key"
        `);
    await queryRunner.query(`
            DROP TABLE "weekly_schedules"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."date_overrides_member_date_key"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."date_overrides_organization_user_date_idx"
        `);
    await queryRunner.query(`
            DROP TABLE "date_overrides"
        `);
  }
}
