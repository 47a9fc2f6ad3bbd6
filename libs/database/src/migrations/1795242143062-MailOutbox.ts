import { MigrationInterface, QueryRunner } from 'typeorm';

/** The transactional mail outbox; the partial index keeps finding due messages cheap as sent ones pile up. */
export class MailOutbox1795242143062 implements MigrationInterface {
  name = 'MailOutbox1795242143062';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            CREATE TABLE "mail_outbox" (
                "id" text NOT NULL,
                "organization_id" text,
                "recipients" text array NOT NULL,
                "subject" text NOT NULL,
                "text_body" text NOT NULL,
                "html_body" text NOT NULL,
                "ical" jsonb,
                "status" text NOT NULL DEFAULT 'pending',
                "attempts" integer NOT NULL DEFAULT '0',
                "next_attempt_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                "locked_until" TIMESTAMP WITH TIME ZONE,
                "last_error" text,
                "sent_at" TIMESTAMP WITH TIME ZONE,
                "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(),
                CONSTRAINT "mail_outbox_status_check" CHECK ("status" IN ('pending', 'sent', 'failed')),
                CONSTRAINT "PK_fecc63c96385bc35a39ccf2a72e" PRIMARY KEY ("id")
            )
        `);
    await queryRunner.query(`
            CREATE INDEX "mail_outbox_due_idx" ON "mail_outbox" ("next_attempt_at")
            WHERE "status" = 'pending'
        `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
            DROP INDEX "public"."mail_outbox_due_idx"
        `);
    await queryRunner.query(`
            DROP TABLE "mail_outbox"
        `);
  }
}
