import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Login lockout per email and client address (api-rules.md § Auth): 10 failures of one email from one address
 * lock that address out for it; 100 from all addresses lock the email. Failures recorded before this have no
 * address ('') and count toward the email's cap only.
 */
export class LoginFailuresPerClient1795500300000 implements MigrationInterface {
  name = 'LoginFailuresPerClient1795500300000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "login_failures" ADD "client_ip" text NOT NULL DEFAULT ''`);
    await queryRunner.query(`CREATE INDEX "login_failures_email_client_at_idx" ON "login_failures" ("email", "client_ip", "failed_at")`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "login_failures_email_client_at_idx"`);
    await queryRunner.query(`ALTER TABLE "login_failures" DROP COLUMN "client_ip"`);
  }
}
