import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Traces across the outbox (contract § 19): a domain event keeps the W3C `traceparent` of the request that recorded it
 * (null with tracing off), and each webhook delivery fanned out from it keeps the same, so every attempt's span joins
 * the request's trace however late it runs. Adding a nullable column rewrites no row.
 */
export class TraceContext1795713180010 implements MigrationInterface {
  name = 'TraceContext1795713180010';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            ALTER TABLE "domain_events"
            ADD "trace_parent" text
        `);
    await queryRunner.query(`
            ALTER TABLE "webhook_deliveries"
            ADD "trace_parent" text
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            ALTER TABLE "webhook_deliveries" DROP COLUMN "trace_parent"
        `);
    await queryRunner.query(`
            ALTER TABLE "domain_events" DROP COLUMN "trace_parent"
        `);
  }
}
