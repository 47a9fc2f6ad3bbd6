import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Contract § 17, attendee change policy and host booking limits: each event type's `attendee_cancellation` and
 * `attendee_rescheduling` (`{ allowed, noticeMinutes }`, existing rows take the defaults: allowed, no notice), and each
 * member's `booking_limits` (`{ perDay, perWeek }` or null). A change of a member's limits bumps the member's
 * availability version (cached slots are computed from it), as a schedule change does.
 */
export class SchedulingPolicies1795820000000 implements MigrationInterface {
  name = 'SchedulingPolicies1795820000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            ALTER TABLE "event_types"
            ADD "attendee_cancellation" jsonb NOT NULL DEFAULT '{"allowed":true,"noticeMinutes":0}'
        `);
    await queryRunner.query(`
            ALTER TABLE "event_types"
            ADD "attendee_rescheduling" jsonb NOT NULL DEFAULT '{"allowed":true,"noticeMinutes":0}'
        `);
    await queryRunner.query(`
            ALTER TABLE "members"
            ADD "booking_limits" jsonb
        `);
    await queryRunner.query(`
            CREATE FUNCTION availability_versions_bump_member_limits() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
              INSERT INTO availability_versions (organization_id, subject, version)
              SELECT NEW.organization_id, 'u:' || NEW.user_id, nextval('availability_version_seq')
               WHERE NEW.user_id IS NOT NULL AND EXISTS (SELECT 1 FROM organizations o WHERE o.id = NEW.organization_id)
              ON CONFLICT (organization_id, subject) DO UPDATE SET version = EXCLUDED.version;
              RETURN NULL;
            END $$
        `);
    await queryRunner.query(`
            CREATE TRIGGER members_booking_limits_availability_update AFTER UPDATE ON "members"
            FOR EACH ROW WHEN (OLD.booking_limits IS DISTINCT FROM NEW.booking_limits)
            EXECUTE FUNCTION availability_versions_bump_member_limits()`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER members_booking_limits_availability_update ON "members"`);
    await queryRunner.query(`DROP FUNCTION availability_versions_bump_member_limits()`);
    await queryRunner.query(`ALTER TABLE "members" DROP COLUMN "booking_limits"`);
    await queryRunner.query(`ALTER TABLE "event_types" DROP COLUMN "attendee_rescheduling"`);
    await queryRunner.query(`ALTER TABLE "event_types" DROP COLUMN "attendee_cancellation"`);
  }
}
