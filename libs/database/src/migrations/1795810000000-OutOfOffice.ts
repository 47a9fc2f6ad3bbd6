import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Out-of-office entries (contract § 17), owned by the out-of-office module. One user's entries never overlap: the
 * exclusion constraint refuses the second of two concurrent writes (409 OUT_OF_OFFICE_OVERLAP). An external id is
 * unique per organization (the idempotent PUT). Removing the member removes its entries; a redirect to a member who
 * leaves is dropped. Entries change slots, so they bump their user's availability version like date overrides.
 */
export class OutOfOffice1795810000000 implements MigrationInterface {
  name = 'OutOfOffice1795810000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            CREATE TABLE "out_of_office_entries" (
                "id" text NOT NULL,
                "organization_id" text NOT NULL,
                "member_id" text NOT NULL,
                "user_id" text NOT NULL,
                "starts_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                "ends_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                "note" text,
                "redirect_to_user_id" text,
                "external_id" text,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL,
                CONSTRAINT "PK_out_of_office_entries" PRIMARY KEY ("id"),
                CONSTRAINT "out_of_office_entries_span_check" CHECK ("starts_at" < "ends_at"),
                CONSTRAINT "out_of_office_entries_no_overlap" EXCLUDE USING gist (
                    "organization_id" WITH =, "user_id" WITH =, tstzrange("starts_at", "ends_at", '[)') WITH &&
                )
            )
        `);
    await queryRunner.query(`
            CREATE UNIQUE INDEX "out_of_office_entries_external_id_key" ON "out_of_office_entries" ("organization_id", "external_id")
            WHERE "external_id" IS NOT NULL
        `);
    await queryRunner.query(`
            CREATE INDEX "out_of_office_entries_organization_user_starts_idx" ON "out_of_office_entries" ("organization_id", "user_id", "starts_at")
        `);
    await queryRunner.query(`
            ALTER TABLE "out_of_office_entries"
            ADD CONSTRAINT "out_of_office_entries_organization_fk" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE
        `);
    await queryRunner.query(`
            ALTER TABLE "out_of_office_entries"
            ADD CONSTRAINT "out_of_office_entries_member_fk" FOREIGN KEY ("member_id") REFERENCES "members"("id") ON DELETE CASCADE
        `);
    for (const [operation, tables] of [
      ['INSERT', 'NEW TABLE AS new_rows'],
      ['UPDATE', 'OLD TABLE AS old_rows NEW TABLE AS new_rows'],
      ['DELETE', 'OLD TABLE AS old_rows'],
    ]) {
      await queryRunner.query(`
            CREATE TRIGGER out_of_office_entries_availability_${operation.toLowerCase()} AFTER ${operation} ON "out_of_office_entries"
            REFERENCING ${tables} FOR EACH STATEMENT EXECUTE FUNCTION availability_versions_bump('user_id', 'u:')`);
    }
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "out_of_office_entries"`);
  }
}
