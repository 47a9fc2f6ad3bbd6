import pg from 'pg';
import { DataSource } from 'typeorm';
import { ReminderSenderWorker } from '../apps/api/src/modules/booking-reminders/reminder-sender.worker.js';
import { startTestApp, type TestApp } from './support/app.js';
import { bookingOrg, type BookingOrg, NOW } from './support/bookings.js';

const PER_ORGANIZATION = 3;

/**
 * A reminder round's lookups are batched across organizations (docs/contributing/performance.md § Reminders; the measurements of issue 34 in its git log): the
 * statements a round sends (every one goes through pg's Client.query, batched writes as one) do not grow with the
 * number of organizations whose reminders it sends.
 */
describe('reminder sender: statements per round', () => {
  let api: TestApp;
  let db: DataSource;
  let worker: ReminderSenderWorker;
  let round = 0;

  beforeAll(async () => {
    // No loop of its own: the test runs the rounds.
    api = await startTestApp({ env: { RUN_WORKERS: 'false' } });
    db = api.app.get(DataSource);
    worker = api.app.get(ReminderSenderWorker);
  }, 60_000);

  afterAll(async () => {
    await api?.close();
  });

  /** PER_ORGANIZATION reminders due now in each of `orgs`, written as the booking path writes them. */
  async function plant(orgs: readonly BookingOrg[]): Promise<void> {
    round += 1;
    for (const [n, org] of orgs.entries()) {
      await db.query(
        `WITH b AS (
           INSERT INTO bookings (id, organization_id, event_type_id, livemode, status, starts_at, ends_at, host_user_id, attendee_email,
                                 timezone, confirmation_token_hash, created_at, updated_at)
           SELECT 'bkg_round' || $5::text || '_' || lpad(i::text, 6, '0'), $1, $2, true, 'confirmed',
                  $6::timestamptz + make_interval(days => $7::integer, mins => 30 * i),
                  $6::timestamptz + make_interval(days => $7::integer, mins => 30 * i + 30), $3,
                  'attendee' || i || '@example.com', 'UTC', md5($5::text || i::text), $6, $6
             FROM generate_series(1, $4::integer) AS i
           RETURNING id, starts_at, ends_at
         ), h AS (
           INSERT INTO booking_hosts (booking_id, host_user_id, organization_id, event_type_id, livemode, status, during, created_at)
           SELECT id, $3, $1, $2, true, 'confirmed', tstzrange(starts_at, ends_at, '[)'), $6 FROM b
         )
         INSERT INTO booking_reminders (organization_id, booking_id, minutes_before, due_at)
         SELECT $1, id, 60, $6 FROM b`,
        [org.owner.organizationId, org.eventTypeId, org.owner.userId, PER_ORGANIZATION, `${round}_${n}`, NOW, round],
      );
    }
  }

  /** One round, with the statements it sent. */
  async function countedRound(): Promise<{ statements: string[]; sent: number }> {
    type Query = (this: unknown, config: string | { text: string }, ...rest: unknown[]) => unknown;
    const prototype = pg.Client.prototype as unknown as { query: Query };
    const original = prototype.query;
    const statements: string[] = [];
    prototype.query = function (this: unknown, config: string | { text: string }, ...rest: unknown[]) {
      statements.push(typeof config === 'string' ? config : config.text);
      return original.call(this, config, ...rest);
    };
    try {
      const { sent } = await worker.sendDue();
      return { statements, sent };
    } finally {
      prototype.query = original;
    }
  }

  it('sends a round over 2 or 6 organizations with the same number of statements', async () => {
    const orgs: BookingOrg[] = [];
    for (let i = 0; i < 9; i++) orgs.push(await bookingOrg(api, { reminders: [{ minutesBefore: 60, recipients: ['attendee', 'host'] }] }));
    api.clock.set(NOW);
    // A first round warms what a process asks once (the log settings' rights).
    await plant(orgs.slice(0, 1));
    expect((await countedRound()).sent).toBe(PER_ORGANIZATION);

    await plant(orgs.slice(1, 3));
    const two = await countedRound();
    await plant(orgs.slice(3, 9));
    const six = await countedRound();

    expect(two.sent).toBe(2 * PER_ORGANIZATION);
    expect(six.sent).toBe(6 * PER_ORGANIZATION);
    expect(six.statements.length).toBe(two.statements.length);
    expect(two.statements.length).toBeLessThanOrEqual(10);
    // Each organization's mails and events were written: one event per reminder, attendee and host mails.
    const [{ events, mails }] = await db.query(
      `SELECT (SELECT count(*)::int FROM domain_events WHERE type = 'booking.reminder') AS events,
              (SELECT count(*)::int FROM mail_outbox WHERE subject LIKE 'Reminder:%') AS mails`,
    );
    expect(events).toBe(9 * PER_ORGANIZATION);
    expect(mails).toBe(9 * PER_ORGANIZATION * 2);
  }, 90_000);
});
