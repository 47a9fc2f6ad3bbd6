import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Partner apps (contract § 20), owned by the oauth module. An app belongs to the organization that registered it; a
 * grant and its tokens to the organization that connected the app; an authorization request to the app's
 * organization until it is decided. Deleting an app deletes its requests, grants and tokens; deleting a grant its
 * tokens; deleting an organization its apps and grants. Codes and refresh tokens are single-use through conditional
 * UPDATEs on their unique hashes.
 */
export class OAuth1795904900000 implements MigrationInterface {
  name = 'OAuth1795904900000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            CREATE TABLE "oauth_apps" (
                "id" text NOT NULL,
                "organization_id" text NOT NULL,
                "client_id" text NOT NULL,
                "name" text NOT NULL,
                "type" text NOT NULL,
                "redirect_uris" text array NOT NULL,
                "scopes" text array NOT NULL,
                "homepage_url" text,
                "logo_url" text,
                "secret_hash" text,
                "previous_secret_hash" text,
                "previous_secret_expires_at" TIMESTAMP WITH TIME ZONE,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                CONSTRAINT "PK_oauth_apps" PRIMARY KEY ("id"),
                CONSTRAINT "oauth_apps_secret" CHECK (("type" = 'confidential') = ("secret_hash" IS NOT NULL)),
                CONSTRAINT "oauth_apps_organization_fk" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE
            )
        `);
    await queryRunner.query(`CREATE UNIQUE INDEX "oauth_apps_client_id_key" ON "oauth_apps" ("client_id")`);
    await queryRunner.query(`CREATE INDEX "oauth_apps_organization_created_idx" ON "oauth_apps" ("organization_id", "created_at")`);
    await queryRunner.query(`
            CREATE TABLE "oauth_grants" (
                "id" text NOT NULL,
                "organization_id" text NOT NULL,
                "app_id" text NOT NULL,
                "scopes" text array NOT NULL,
                "acting_user_id" text NOT NULL,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                "last_used_at" TIMESTAMP WITH TIME ZONE,
                CONSTRAINT "PK_oauth_grants" PRIMARY KEY ("id"),
                CONSTRAINT "oauth_grants_organization_fk" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE,
                CONSTRAINT "oauth_grants_app_fk" FOREIGN KEY ("app_id") REFERENCES "oauth_apps"("id") ON DELETE CASCADE
            )
        `);
    await queryRunner.query(`CREATE UNIQUE INDEX "oauth_grants_organization_app_key" ON "oauth_grants" ("organization_id", "app_id")`);
    await queryRunner.query(`CREATE INDEX "oauth_grants_app_idx" ON "oauth_grants" ("app_id")`);
    await queryRunner.query(`
            CREATE TABLE "oauth_authorizations" (
                "id" text NOT NULL,
                "organization_id" text NOT NULL,
                "app_id" text NOT NULL,
                "redirect_uri" text NOT NULL,
                "scopes" text array NOT NULL,
                "state" text,
                "code_challenge" text NOT NULL,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                "decided_at" TIMESTAMP WITH TIME ZONE,
                "approved" boolean,
                "connecting_organization_id" text,
                "grant_id" text,
                "code_hash" text,
                "code_expires_at" TIMESTAMP WITH TIME ZONE,
                "code_used_at" TIMESTAMP WITH TIME ZONE,
                CONSTRAINT "PK_oauth_authorizations" PRIMARY KEY ("id"),
                CONSTRAINT "oauth_authorizations_organization_fk" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE,
                CONSTRAINT "oauth_authorizations_app_fk" FOREIGN KEY ("app_id") REFERENCES "oauth_apps"("id") ON DELETE CASCADE,
                CONSTRAINT "oauth_authorizations_connecting_organization_fk" FOREIGN KEY ("connecting_organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE,
                CONSTRAINT "oauth_authorizations_grant_fk" FOREIGN KEY ("grant_id") REFERENCES "oauth_grants"("id") ON DELETE SET NULL
            )
        `);
    await queryRunner.query(`CREATE UNIQUE INDEX "oauth_authorizations_code_hash_key" ON "oauth_authorizations" ("code_hash")`);
    await queryRunner.query(`CREATE INDEX "oauth_authorizations_app_idx" ON "oauth_authorizations" ("app_id")`);
    await queryRunner.query(`CREATE INDEX "oauth_authorizations_expires_idx" ON "oauth_authorizations" ("expires_at")`);
    await queryRunner.query(`
            CREATE TABLE "oauth_tokens" (
                "id" text NOT NULL,
                "organization_id" text NOT NULL,
                "grant_id" text NOT NULL,
                "app_id" text NOT NULL,
                "authorization_id" text NOT NULL,
                "kind" text NOT NULL,
                "token_hash" text NOT NULL,
                "scopes" text array NOT NULL,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                "used_at" TIMESTAMP WITH TIME ZONE,
                "revoked_at" TIMESTAMP WITH TIME ZONE,
                CONSTRAINT "PK_oauth_tokens" PRIMARY KEY ("id"),
                CONSTRAINT "oauth_tokens_kind" CHECK ("kind" IN ('access', 'refresh')),
                CONSTRAINT "oauth_tokens_organization_fk" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE,
                CONSTRAINT "oauth_tokens_grant_fk" FOREIGN KEY ("grant_id") REFERENCES "oauth_grants"("id") ON DELETE CASCADE
            )
        `);
    await queryRunner.query(`CREATE UNIQUE INDEX "oauth_tokens_token_hash_key" ON "oauth_tokens" ("token_hash")`);
    await queryRunner.query(`CREATE INDEX "oauth_tokens_authorization_idx" ON "oauth_tokens" ("authorization_id")`);
    await queryRunner.query(`CREATE INDEX "oauth_tokens_grant_idx" ON "oauth_tokens" ("grant_id")`);
    await queryRunner.query(`CREATE INDEX "oauth_tokens_expires_idx" ON "oauth_tokens" ("expires_at")`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "oauth_tokens"`);
    await queryRunner.query(`DROP TABLE "oauth_authorizations"`);
    await queryRunner.query(`DROP TABLE "oauth_grants"`);
    await queryRunner.query(`DROP TABLE "oauth_apps"`);
  }
}
