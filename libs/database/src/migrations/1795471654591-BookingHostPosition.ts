import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Generated, then reviewed: the generator also proposed dropping the cross-module foreign keys (entities
 * no longer relate across modules; the keys stay, see docs/operating/upgrades.md), which is removed here.
 * A booking's hosts keep their order in booking_hosts itself (primary first, then the event type's host
 * order at booking time), so reading them no longer joins the event-types module's tables. Existing rows
 * get the order that join gave.
 */
export class BookingHostPosition1795471654591 implements MigrationInterface {
  name = 'BookingHostPosition1795471654591';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            ALTER TABLE "booking_hosts"
            ADD "position" smallint NOT NULL DEFAULT '1'
        `);
    await queryRunner.query(`
            UPDATE "booking_hosts" bh SET "position" = ordered.position
              FROM (SELECT bh2.booking_id, bh2.host_user_id,
                           row_number() OVER (PARTITION BY bh2.booking_id
                                              ORDER BY (bh2.host_user_id = b.host_user_id) DESC, eth.position NULLS LAST, bh2.host_user_id) AS position
                      FROM "booking_hosts" bh2
                      JOIN "bookings" b ON b.id = bh2.booking_id
                      LEFT JOIN "event_type_hosts" eth ON eth.event_type_id = b.event_type_id AND eth.user_id = bh2.host_user_id) ordered
             WHERE ordered.booking_id = bh.booking_id AND ordered.host_user_id = bh.host_user_id AND ordered.position <> 1
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            ALTER TABLE "booking_hosts" DROP COLUMN "position"
        `);
  }
}
