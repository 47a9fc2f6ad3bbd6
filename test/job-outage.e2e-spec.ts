import pg from 'pg';
import { DataSource } from 'typeorm';
import { SET_BACK_SECONDS } from '../apps/api/src/jobs/index.js';
import { startTestApp, type TestApp } from './support/app.js';
import { registerOwner } from './support/factories.js';
import { createWebhook, eventually, recordEvents, WebhookReceiver } from './support/webhooks.js';

/*
 * Section 19: errors that say the database is unavailable never count as a job's failed attempt. The outbox
 * dispatcher's fan-out of one event meets a terminated session (57P01) more times than its retry schedule allows
 * (OUTBOX_RETRY_SCHEDULE of two retries: the third counted failure parks the event for good). None is counted: once the
 * database answers again the event is fanned out and its webhook delivered.
 */
describe('a job that meets a database outage', () => {
  let api: TestApp;
  let db: DataSource;
  let admin: pg.Client;
  /** Holds the lock in a transaction of its own (pg_stat_activity keeps one snapshot per transaction: `admin` watches). */
  let locker: pg.Client;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    api = await startTestApp({ env: { OUTBOX_RETRY_SCHEDULE: '0.2,0.2', DB_STATEMENT_TIMEOUT_MS: '30000' } });
    db = api.app.get(DataSource);
    admin = new pg.Client({ connectionString: api.databaseUrl });
    locker = new pg.Client({ connectionString: api.databaseUrl });
    await Promise.all([admin.connect(), locker.connect()]);
  }, 60_000);

  afterAll(async () => {
    await Promise.all([admin?.end().catch(() => undefined), locker?.end().catch(() => undefined)]);
    await api?.close();
    await receiver?.stop();
  });

  /** The dispatcher's session waiting on the test's lock to write the event's deliveries (not a claim's). */
  async function blockedFanOut(): Promise<number> {
    return eventually(
      async () => {
        const rows = await admin.query<{ pid: number }>(
          `SELECT pid FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock'
              AND query NOT ILIKE '%locked_until = CASE%'`,
        );
        return rows.rows[0]?.pid;
      },
      20_000,
      'the fan-out waiting on the lock',
    );
  }

  it('is not counted: an event whose fan-out lost its session three times is delivered once the database answers', async () => {
    const owner = await registerOwner(api.http);
    const hook = await createWebhook(api.http, { token: owner.accessToken }, { url: receiver.url('/outage'), events: ['booking.created'] });
    receiver.expectSecret('/outage', hook.secret);

    await locker.query('BEGIN');
    await locker.query('LOCK TABLE webhook_deliveries IN SHARE MODE');
    const [eventId] = await recordEvents(api, [{ organizationId: owner.organizationId, type: 'booking.created', data: { n: 1 } }]);
    for (let i = 0; i < 3; i++) {
      const pid = await blockedFanOut();
      await admin.query('SELECT pg_terminate_backend($1)', [pid]);
      await eventually(
        async () => ((await admin.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid])).rowCount === 0 ? true : undefined),
        5000,
        'the terminated session gone',
      );
      // The set-back is written after the failed transaction: wait until the event shows it (the claim's lease of 30 s
      // replaced by a wait of SET_BACK_SECONDS).
      await eventually(
        async () => {
          const [row] = await db.query(
            `SELECT attempts, failed_at, locked_until BETWEEN now() AND now() + make_interval(secs => $2) AS held FROM domain_events WHERE id = $1`,
            [eventId, SET_BACK_SECONDS],
          );
          return row.held ? row : undefined;
        },
        5000,
        'the event set back',
      );
      const [row] = await db.query(`SELECT attempts, failed_at, last_error FROM domain_events WHERE id = $1`, [eventId]);
      expect(row).toMatchObject({ attempts: 0, failed_at: null });
    }
    await locker.query('ROLLBACK');

    await receiver.waitFor(() => receiver.ids('/outage').size === 1, 20_000, 'the event delivered');
    const [row] = await db.query(`SELECT attempts, failed_at, dispatched_at FROM domain_events WHERE id = $1`, [eventId]);
    expect(row.failed_at).toBeNull();
    expect(row.dispatched_at).not.toBeNull();
    expect(row.attempts).toBe(1);
  }, 60_000);
});
