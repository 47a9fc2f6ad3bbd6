import { DataSource } from 'typeorm';
import { startTestApp, type TestApp } from './support/app.js';
import { bookingOrg, NOW } from './support/bookings.js';
import { eventually } from './support/webhooks.js';

const ORGANIZATIONS = 3;
const PER_ORGANIZATION = 100;
const POISON = 'poison@example.com';

/**
 * One queue (docs/contributing/architecture.md § Background work): the reminder sender's outcomes are per row. 300 reminders of
 * three organizations fall due at the same instant of the Clock, and one of them cannot be written: the mail outbox
 * refuses its recipient (a check planted in this file's database, as a recipient the outbox would refuse at send time).
 * Its round rolls back; every other reminder still goes out at its due time, and the bad one is retried on its own
 * schedule, then parked as missed with its error, its event and mails never written.
 */
describe('reminder sender: a poison row among 300 due reminders', () => {
  let api: TestApp;
  let db: DataSource;

  beforeAll(async () => {
    api = await startTestApp({ env: { REMINDERS_POLL_MS: '100', REMINDER_RETRY_SCHEDULE: '0.2,0.2' } });
    db = api.app.get(DataSource);
  }, 60_000);

  afterAll(async () => {
    await api?.close();
  });

  const count = async (sql: string, params: unknown[] = []): Promise<number> => (await db.query(sql, params))[0].n as number;

  it('sends every other reminder on time and parks the poison one with its error after its retries', async () => {
    const orgs = [];
    for (let i = 0; i < ORGANIZATIONS; i++)
      orgs.push(await bookingOrg(api, { reminders: [{ minutesBefore: 60, recipients: ['attendee', 'host'] }] }));
    await db.query(`ALTER TABLE mail_outbox ADD CONSTRAINT test_poison_recipient CHECK (NOT recipients @> ARRAY['${POISON}'])`);
    api.clock.set(NOW);
    // Due now on the Clock, written as the booking path writes them: bookings a day ahead, half an hour apart, each
    // with its host row and its due row; the middle organization's 50th attendee is the poison.
    for (const [n, org] of orgs.entries()) {
      await db.query(
        `WITH b AS (
           INSERT INTO bookings (id, organization_id, event_type_id, livemode, status, starts_at, ends_at, host_user_id, attendee_email,
                                 timezone, confirmation_token_hash, created_at, updated_at)
           SELECT 'bkg_poison' || $5::text || lpad(i::text, 6, '0'), $1, $2, true, 'confirmed', $6::timestamptz + make_interval(days => 1, mins => 30 * i),
                  $6::timestamptz + make_interval(days => 1, mins => 30 * i + 30), $3,
                  CASE WHEN $5::integer = 1 AND i = 50 THEN '${POISON}' ELSE 'attendee' || i || '@example.com' END, 'UTC', md5(i::text), $6, $6
             FROM generate_series(1, $4::integer) AS i
           RETURNING id, starts_at, ends_at
         ), h AS (
           INSERT INTO booking_hosts (booking_id, host_user_id, organization_id, event_type_id, livemode, status, during, created_at)
           SELECT id, $3, $1, $2, true, 'confirmed', tstzrange(starts_at, ends_at, '[)'), $6 FROM b
         )
         INSERT INTO booking_reminders (organization_id, booking_id, minutes_before, due_at)
         SELECT $1, id, 60, $6 FROM b`,
        [org.owner.organizationId, org.eventTypeId, org.owner.userId, PER_ORGANIZATION, n, NOW],
      );
    }
    const total = ORGANIZATIONS * PER_ORGANIZATION;

    await eventually(
      async () =>
        (await count(`SELECT count(*)::int AS n FROM booking_reminders WHERE missed AND last_error IS NOT NULL`)) === 1 ? true : undefined,
      30_000,
      'the poison reminder parked',
    );
    // Every other reminder went out while the Clock still says their due time: on time, each exactly once.
    const sent: { sent_at: Date; n: number }[] = await db.query(
      `SELECT sent_at, count(*)::int AS n FROM booking_reminders WHERE sent_at IS NOT NULL GROUP BY sent_at`,
    );
    expect(sent).toEqual([{ sent_at: new Date(NOW), n: total - 1 }]);
    expect(await count(`SELECT count(*)::int AS n FROM domain_events WHERE type = 'booking.reminder'`)).toBe(total - 1);
    expect(await count(`SELECT count(*)::int AS n FROM mail_outbox WHERE subject LIKE 'Reminder:%'`)).toBe((total - 1) * 2);
    // The poison one: three attempts (the first and two retries), its error, nothing of it in the outboxes.
    const [poison] = await db.query(
      `SELECT r.attempts, r.last_error, r.sent_at, r.locked_until FROM booking_reminders r JOIN bookings b ON b.id = r.booking_id
        WHERE b.attendee_email = $1`,
      [POISON],
    );
    expect(poison).toMatchObject({ attempts: 3, sent_at: null, locked_until: null });
    expect(poison.last_error).toMatch(/test_poison_recipient/);
    expect(poison.last_error).not.toContain(POISON);
    expect(
      await count(
        `SELECT count(*)::int AS n FROM domain_events WHERE type = 'booking.reminder' AND data->'booking'->'attendee'->>'email' = $1`,
        [POISON],
      ),
    ).toBe(0);
    expect(await count(`SELECT count(*)::int AS n FROM mail_outbox WHERE $1 = ANY(recipients)`, [POISON])).toBe(0);
  }, 60_000);
});
