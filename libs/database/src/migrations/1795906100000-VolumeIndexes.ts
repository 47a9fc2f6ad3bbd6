import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the volume bench (issue 54, `npm run bench:volume`) found scanning whole tables on a request path, erasure's
 * statements all: the domain events about a booking (or a rescheduled one's predecessor, or a routing response) were
 * found by reading every event; the bookings whose email-type answer is the erased address by reading every booking of
 * the organization; the mail about erased records by reading every mail. Each now has an index, built CONCURRENTLY
 * (online: bookings go on meanwhile), so this migration runs outside a transaction; a build that failed half way
 * leaves an invalid index, dropped and built again by the next run (a valid one is kept).
 *
 * `booking_answer_emails(answers)` is the answers' email-type values in lower case (what erasure compares), an
 * IMMUTABLE function so that an index can hold it; it never fails (answers that are not an array of objects give none),
 * as a failing index expression would refuse the booking's insert.
 */
export class VolumeIndexes1795906100000 implements MigrationInterface {
  name = 'VolumeIndexes1795906100000';
  transaction = false as const;

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE OR REPLACE FUNCTION booking_answer_emails(answers jsonb) RETURNS text[]
         LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
         RETURN CASE WHEN jsonb_typeof(answers) = 'array' THEN ARRAY(
                  SELECT lower(a->>'value') FROM jsonb_array_elements(answers) AS a
                   WHERE jsonb_typeof(a) = 'object' AND a->>'type' = 'email' AND a->>'value' IS NOT NULL)
                ELSE '{}'::text[] END`,
    );
    // Without lock_timeout: a CONCURRENTLY build waits for older transactions to end without blocking anyone's writes,
    // and a retried migration keeps what an earlier attempt built.
    const [{ lock_timeout: lockTimeout }]: { lock_timeout: string }[] = await queryRunner.query(`SHOW lock_timeout`);
    await queryRunner.query(`SET lock_timeout = 0`);
    try {
      for (const [name, definition] of INDEXES) {
        const valid: { valid: boolean }[] = await queryRunner.query(
          `SELECT x.indisvalid AS valid FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
            WHERE i.relname = $1 AND i.relnamespace = 'public'::regnamespace`,
          [name],
        );
        if (valid[0]?.valid) continue;
        await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS "${name}"`);
        await queryRunner.query(`CREATE INDEX CONCURRENTLY "${name}" ${definition}`);
      }
    } finally {
      await queryRunner.query(`SELECT set_config('lock_timeout', $1, false)`, [lockTimeout]);
    }
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (const [name] of [...INDEXES].reverse()) await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS "${name}"`);
    await queryRunner.query(`DROP FUNCTION IF EXISTS booking_answer_emails(jsonb)`);
  }
}

const INDEXES: readonly (readonly [string, string])[] = [
  [
    'domain_events_booking_idx',
    `ON "domain_events" ("organization_id", (data #>> '{booking,id}')) WHERE data #>> '{booking,id}' IS NOT NULL`,
  ],
  [
    'domain_events_previous_booking_idx',
    `ON "domain_events" ("organization_id", (data #>> '{previousBooking,id}')) WHERE data #>> '{previousBooking,id}' IS NOT NULL`,
  ],
  [
    'domain_events_routing_response_idx',
    `ON "domain_events" ("organization_id", (data #>> '{response,id}')) WHERE type = 'routing_form.submitted'`,
  ],
  ['bookings_answer_emails_idx', `ON "bookings" USING gin (booking_answer_emails(answers)) WHERE answers <> '[]'::jsonb`],
  ['mail_outbox_about_idx', `ON "mail_outbox" USING gin ("about")`],
  ['mail_outbox_unnamed_idx', `ON "mail_outbox" ("organization_id") WHERE about = '{}'`],
];
