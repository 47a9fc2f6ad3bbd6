import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Enterprise identity (contract § 21), owned by the enterprise-identity module: an organization's OpenID Connect
 * provider and the email domains it claims (a domain is the primary key: unique across organizations), the single
 * sign-ons in progress (spent once), the SCIM token (one per organization, hashed) and what the directory knows of a
 * user beyond its membership (externalId, active, the role to restore).
 */
export class EnterpriseIdentity1795900000000 implements MigrationInterface {
  name = 'EnterpriseIdentity1795900000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            CREATE TABLE "sso_connections" (
                "organization_id" text NOT NULL,
                "issuer" text NOT NULL,
                "client_id" text NOT NULL,
                "client_secret" text NOT NULL,
                "enforce" boolean NOT NULL,
                "default_role" text NOT NULL,
                "discovery" jsonb NOT NULL,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                CONSTRAINT "PK_sso_connections" PRIMARY KEY ("organization_id")
            )
        `);
    await queryRunner.query(`
            CREATE TABLE "sso_domains" (
                "domain" text NOT NULL,
                "organization_id" text NOT NULL,
                CONSTRAINT "sso_domains_domain_key" PRIMARY KEY ("domain")
            )
        `);
    await queryRunner.query(`CREATE INDEX "sso_domains_organization_idx" ON "sso_domains" ("organization_id")`);
    await queryRunner.query(`
            CREATE TABLE "sso_logins" (
                "id" text NOT NULL,
                "organization_id" text NOT NULL,
                "secret_hash" text NOT NULL,
                "code_verifier" text NOT NULL,
                "nonce" text NOT NULL,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                "used_at" TIMESTAMP WITH TIME ZONE,
                CONSTRAINT "PK_sso_logins" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`CREATE INDEX "sso_logins_expires_idx" ON "sso_logins" ("expires_at")`);
    await queryRunner.query(`
            CREATE TABLE "scim_tokens" (
                "organization_id" text NOT NULL,
                "token_hash" text NOT NULL,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                CONSTRAINT "PK_scim_tokens" PRIMARY KEY ("organization_id")
            )
        `);
    await queryRunner.query(`CREATE UNIQUE INDEX "scim_tokens_token_hash_key" ON "scim_tokens" ("token_hash")`);
    await queryRunner.query(`
            CREATE TABLE "scim_users" (
                "organization_id" text NOT NULL,
                "user_id" text NOT NULL,
                "external_id" text,
                "active" boolean NOT NULL,
                "role" text NOT NULL,
                "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                CONSTRAINT "PK_scim_users" PRIMARY KEY ("organization_id", "user_id")
            )
        `);
    for (const table of ['sso_connections', 'sso_domains', 'sso_logins', 'scim_tokens', 'scim_users']) {
      await queryRunner.query(
        `ALTER TABLE "${table}" ADD CONSTRAINT "${table}_organization_fk" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE`,
      );
    }
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of ['scim_users', 'scim_tokens', 'sso_logins', 'sso_domains', 'sso_connections']) {
      await queryRunner.query(`DROP TABLE "${table}"`);
    }
  }
}
