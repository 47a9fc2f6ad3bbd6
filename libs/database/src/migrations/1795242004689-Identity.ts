import { MigrationInterface, QueryRunner } from 'typeorm';

export class Identity1795242004689 implements MigrationInterface {
  name = 'Identity1795242004689';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            CREATE TABLE "login_failures" (
                "id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
                "email" text NOT NULL,
                "failed_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                CONSTRAINT "PK_8211e8ec810fd7f976b98ce97a0" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE INDEX "login_failures_email_at_idx" ON "login_failures" ("email", "failed_at")
        `);
    await queryRunner.query(`
            CREATE TABLE "users" (
                "id" text NOT NULL,
                "email" text NOT NULL,
                "password_hash" text NOT NULL,
                "first_name" text,
                "last_name" text,
                "timezone" text NOT NULL DEFAULT 'UTC',
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                CONSTRAINT "PK_a3ffb1c0c8416b9fc6f907b7433" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE UNIQUE INDEX "users_email_key" ON "users" ("email")
        `);
    await queryRunner.query(`
            CREATE TABLE "organizations" (
                "id" text NOT NULL,
                "name" text NOT NULL,
                "slug" text NOT NULL,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                CONSTRAINT "PK_6b031fcd0863e3f6b44230163f9" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE UNIQUE INDEX "organizations_slug_key" ON "organizations" ("slug")
        `);
    await queryRunner.query(`
            CREATE TABLE "api_keys" (
                "id" text NOT NULL,
                "organization_id" text NOT NULL,
                "created_by_user_id" text NOT NULL,
                "name" text NOT NULL,
                "key_prefix" text NOT NULL,
                "key_hash" text NOT NULL,
                "scopes" text array NOT NULL,
                "rate_limit_per_minute" integer NOT NULL,
                "mode" text NOT NULL,
                "expires_at" TIMESTAMP WITH TIME ZONE,
                "last_used_at" TIMESTAMP WITH TIME ZONE,
                "revoked_at" TIMESTAMP WITH TIME ZONE,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                CONSTRAINT "PK_5c8a79801b44bd27b79228e1dad" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE UNIQUE INDEX "api_keys_key_hash_key" ON "api_keys" ("key_hash")
        `);
    await queryRunner.query(`
            CREATE INDEX "api_keys_organization_created_idx" ON "api_keys" ("organization_id", "created_at")
        `);
    await queryRunner.query(`
            CREATE TABLE "members" (
                "id" text NOT NULL,
                "organization_id" text NOT NULL,
                "user_id" text,
                "email" text NOT NULL,
                "first_name" text,
                "last_name" text,
                "role" text NOT NULL,
                "status" text NOT NULL,
                "invitation_token_hash" text,
                "invited_at" TIMESTAMP WITH TIME ZONE,
                "joined_at" TIMESTAMP WITH TIME ZONE,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                CONSTRAINT "PK_28b53062261b996d9c99fa12404" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE UNIQUE INDEX "members_user_id_key" ON "members" ("user_id")
            WHERE user_id IS NOT NULL
        `);
    await queryRunner.query(`
            CREATE UNIQUE INDEX "members_invitation_token_hash_key" ON "members" ("invitation_token_hash")
            WHERE invitation_token_hash IS NOT NULL
        `);
    await queryRunner.query(`
            CREATE INDEX "members_organization_status_role_idx" ON "members" ("organization_id", "status", "role")
        `);
    await queryRunner.query(`
            CREATE UNIQUE INDEX "members_organization_email_key" ON "members" ("organization_id", "email")
        `);
    await queryRunner.query(`
            CREATE TABLE "sessions" (
                "id" text NOT NULL,
                "user_id" text NOT NULL,
                "member_id" text NOT NULL,
                "refresh_token_hash" text NOT NULL,
                "user_agent" text,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                "last_used_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                "revoked_at" TIMESTAMP WITH TIME ZONE,
                CONSTRAINT "PK_3238ef96f18b355b671619111bc" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE INDEX "sessions_user_id_idx" ON "sessions" ("user_id")
        `);
    await queryRunner.query(`
            ALTER TABLE "api_keys"
            ADD CONSTRAINT "FK_a283bdef18876e525aefaec042f" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
    await queryRunner.query(`
            ALTER TABLE "members"
            ADD CONSTRAINT "FK_40c051286e8db5b4613ecb3035a" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
    await queryRunner.query(`
            ALTER TABLE "members"
            ADD CONSTRAINT "FK_da404b5fd9c390e25338996e2d1" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
    await queryRunner.query(`
            ALTER TABLE "sessions"
            ADD CONSTRAINT "FK_085d540d9f418cfbdc7bd55bb19" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
    await queryRunner.query(`
            ALTER TABLE "sessions"
            ADD CONSTRAINT "FK_32520aa49cd5a4acd571e81f752" FOREIGN KEY ("member_id") REFERENCES "members"("id") ON DELETE CASCADE ON UPDATE NO ACTION
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            ALTER TABLE "sessions" DROP CONSTRAINT "FK_32520aa49cd5a4acd571e81f752"
        `);
    await queryRunner.query(`
            ALTER TABLE "sessions" DROP CONSTRAINT "FK_085d540d9f418cfbdc7bd55bb19"
        `);
    await queryRunner.query(`
            ALTER TABLE "members" DROP CONSTRAINT "FK_da404b5fd9c390e25338996e2d1"
        `);
    await queryRunner.query(`
            ALTER TABLE "members" DROP CONSTRAINT "FK_40c051286e8db5b4613ecb3035a"
        `);
    await queryRunner.query(`
            ALTER TABLE "api_keys" DROP CONSTRAINT "FK_a283bdef18876e525aefaec042f"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."sessions_user_id_idx"
        `);
    await queryRunner.query(`
            DROP TABLE "sessions"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."members_organization_email_key"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."members_organization_status_role_idx"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."members_invitation_token_hash_key"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."members_user_id_key"
        `);
    await queryRunner.query(`
            DROP TABLE "members"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."api_keys_organization_created_idx"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."api_keys_key_hash_key"
        `);
    await queryRunner.query(`
            DROP TABLE "api_keys"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."organizations_slug_key"
        `);
    await queryRunner.query(`
            DROP TABLE "organizations"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."users_email_key"
        `);
    await queryRunner.query(`
            DROP TABLE "users"
        `);
    await queryRunner.query(`
            DROP INDEX "public"."login_failures_email_at_idx"
        `);
    await queryRunner.query(`
            DROP TABLE "login_failures"
        `);
  }
}
