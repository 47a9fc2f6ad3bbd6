import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The rows each queue has leased now (LeaseQueue): a queue's next wake-up takes the earliest lease that ends after its
 * row is due from here, and the earliest due row from the due index, so it reads a few index entries however many rows
 * wait. Only leased rows are in it (an outcome or a release sets locked_until back to NULL).
 */
export class LeasedRows1795711641498 implements MigrationInterface {
  name = 'LeasedRows1795711641498';

  public async up(queryRunner: QueryRunner): Promise<void> {
    for (const table of ['calendar_connections', 'calendar_writes', 'mail_outbox', 'webhook_deliveries']) {
      await queryRunner.query(`CREATE INDEX "${table}_leased_idx" ON "${table}" ("locked_until") WHERE "locked_until" IS NOT NULL`);
    }
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of ['webhook_deliveries', 'mail_outbox', 'calendar_writes', 'calendar_connections']) {
      await queryRunner.query(`DROP INDEX "public"."${table}_leased_idx"`);
    }
  }
}
