import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Holds (api-rules.md § Browser booking): a slot kept for a few minutes while an attendee fills in the form.
 *
 * A hold occupies its host(s) in `booking_hosts` itself, as rows with status `held` whose `booking_id` is the
 * hold's id, so the one exclusion constraint that refuses overlapping bookings also refuses a booking or a
 * hold over a live hold, and the availability versions' trigger on booking_hosts sees holds come and go.
 * A constraint cannot read the clock, so an expired hold's rows stay until a writer deletes them: every
 * booking and hold deletes the expired holds of its hosts under the hosts' locks before it inserts.
 * `booking_hosts.booking_id` therefore no longer references bookings; the organization and the event type
 * now cascade to booking_hosts directly (bookings themselves are only ever deleted by those cascades).
 */
export class Holds1795500000000 implements MigrationInterface {
  name = 'Holds1795500000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "event_types" ADD "hold_minutes" integer NOT NULL DEFAULT 10`);
    await queryRunner.query(`
            CREATE TABLE "holds" (
                "id" text NOT NULL,
                "organization_id" text NOT NULL,
                "event_type_id" text NOT NULL,
                "livemode" boolean NOT NULL,
                "starts_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                "ends_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                "host_user_id" text NOT NULL,
                "buffer_before_minutes" integer NOT NULL,
                "buffer_after_minutes" integer NOT NULL,
                "token_hash" text,
                "api_key_id" text,
                "client_ip" text,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                CONSTRAINT "PK_holds" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(
      `CREATE INDEX "holds_organization_event_type_expires_idx" ON "holds" ("organization_id", "livemode", "event_type_id", "expires_at")`,
    );
    await queryRunner.query(`CREATE INDEX "holds_api_key_client_expires_idx" ON "holds" ("api_key_id", "client_ip", "expires_at")`);
    await queryRunner.query(`
            ALTER TABLE "holds" ADD CONSTRAINT "holds_organization_fk" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE
        `);
    await queryRunner.query(`
            ALTER TABLE "holds" ADD CONSTRAINT "holds_event_type_fk" FOREIGN KEY ("event_type_id") REFERENCES "event_types"("id") ON DELETE CASCADE
        `);

    await queryRunner.query(`ALTER TABLE "booking_hosts" DROP CONSTRAINT "FK_e1abb64a613597a8c1d039ada28"`);
    await queryRunner.query(`
            ALTER TABLE "booking_hosts" ADD CONSTRAINT "booking_hosts_organization_fk" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE
        `);
    await queryRunner.query(`
            ALTER TABLE "booking_hosts" ADD CONSTRAINT "booking_hosts_event_type_fk" FOREIGN KEY ("event_type_id") REFERENCES "event_types"("id") ON DELETE CASCADE
        `);
    await queryRunner.query(`ALTER TABLE "booking_hosts" ADD "expires_at" TIMESTAMP WITH TIME ZONE`);
    await queryRunner.query(
      `ALTER TABLE "booking_hosts" ADD CONSTRAINT "booking_hosts_hold_expires" CHECK (("status" = 'held') = ("expires_at" IS NOT NULL))`,
    );
    await queryRunner.query(`ALTER TABLE "booking_hosts" DROP CONSTRAINT "booking_hosts_no_overlap"`);
    await queryRunner.query(`
            ALTER TABLE "booking_hosts" ADD CONSTRAINT "booking_hosts_no_overlap" EXCLUDE USING gist (
                "host_user_id" WITH =,
                "livemode" WITH =,
                "during" WITH &&
            ) WHERE ("status" IN ('confirmed', 'pending', 'held'))
        `);
    await queryRunner.query(
      `CREATE INDEX "booking_hosts_held_expires_idx" ON "booking_hosts" ("host_user_id", "expires_at") WHERE "status" = 'held'`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DELETE FROM "booking_hosts" WHERE "status" = 'held'`);
    await queryRunner.query(`DROP INDEX "booking_hosts_held_expires_idx"`);
    await queryRunner.query(`ALTER TABLE "booking_hosts" DROP CONSTRAINT "booking_hosts_no_overlap"`);
    await queryRunner.query(`
            ALTER TABLE "booking_hosts" ADD CONSTRAINT "booking_hosts_no_overlap" EXCLUDE USING gist (
                "host_user_id" WITH =,
                "livemode" WITH =,
                "during" WITH &&
            ) WHERE ("status" IN ('confirmed', 'pending'))
        `);
    await queryRunner.query(`ALTER TABLE "booking_hosts" DROP CONSTRAINT "booking_hosts_hold_expires"`);
    await queryRunner.query(`ALTER TABLE "booking_hosts" DROP COLUMN "expires_at"`);
    await queryRunner.query(`ALTER TABLE "booking_hosts" DROP CONSTRAINT "booking_hosts_event_type_fk"`);
    await queryRunner.query(`ALTER TABLE "booking_hosts" DROP CONSTRAINT "booking_hosts_organization_fk"`);
    await queryRunner.query(`
            ALTER TABLE "booking_hosts" ADD CONSTRAINT "FK_e1abb64a613597a8c1d039ada28" FOREIGN KEY ("booking_id") REFERENCES "bookings"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
    await queryRunner.query(`DROP TABLE "holds"`);
    await queryRunner.query(`ALTER TABLE "event_types" DROP COLUMN "hold_minutes"`);
  }
}
