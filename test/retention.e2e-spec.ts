import { DataSource } from 'typeorm';
import { FixedClock } from '@app/common';
import { PeriodicJobs } from '../apps/api/src/jobs/index.js';
import { startTestApp, type TestApp } from './support/app.js';
import { registerOwner } from './support/factories.js';
import { createWebhook } from './support/webhooks.js';

const DAY = 24 * 3600 * 1000;

/** Housekeeping keeps the outbox tables from growing without bound (RETENTION_DAYS, default 30), on the Clock. */
describe('retention and idempotency cleanup', () => {
  let t: TestApp;
  let db: DataSource;
  const clock = new FixedClock('2027-06-01T12:00:00.000Z');
  const ago = (days: number): Date => new Date(clock.now().getTime() - days * DAY);

  beforeAll(async () => {
    // The jobs run on demand here (runOnce), not on their timers.
    t = await startTestApp({ clock, env: { RUN_WORKERS: 'false' } });
    db = t.app.get(DataSource);
  });
  afterAll(async () => {
    await t.close();
  });

  const ids = async (table: string): Promise<string[]> =>
    ((await db.query(`SELECT id FROM ${table} ORDER BY id`)) as { id: string }[]).map((row) => row.id);

  it('deletes finished outbox rows older than the retention period and keeps everything else', async () => {
    const owner = await registerOwner(t.http);
    const org = owner.organizationId;
    await db.query('DELETE FROM domain_events');
    await db.query('DELETE FROM mail_outbox');
    for (const [id, status, days] of [
      ['mail_sent_old', 'sent', 31],
      ['mail_sent_new', 'sent', 29],
      ['mail_failed_old', 'failed', 31],
      ['mail_pending_old', 'pending', 31],
    ] as const) {
      await db.query(
        `INSERT INTO mail_outbox (id, organization_id, recipients, subject, text_body, html_body, status, created_at)
         VALUES ($1, $2, ARRAY['a@example.com'], 's', 't', 'h', $3, $4)`,
        [id, org, status, ago(days)],
      );
    }
    for (const [id, dispatched, days] of [
      ['evt_dispatched_old', true, 31],
      ['evt_dispatched_new', true, 29],
      ['evt_waiting_old', false, 31],
    ] as const) {
      await db.query(
        `INSERT INTO domain_events (id, organization_id, livemode, type, data, created_at, dispatched_at)
         VALUES ($1, $2, true, 'booking.created', '{}', $3, $4)`,
        [id, org, ago(days), dispatched ? ago(days) : null],
      );
    }
    const webhook = await createWebhook(t.http, { token: owner.accessToken }, { url: 'https://example.com/hook', events: ['*'] });
    for (const [id, status, days] of [
      ['del_succeeded_old', 'succeeded', 31],
      ['del_failed_old', 'failed', 31],
      ['del_succeeded_new', 'succeeded', 29],
      ['del_pending_old', 'pending', 31],
    ] as const) {
      await db.query(
        `INSERT INTO webhook_deliveries (id, webhook_id, organization_id, event_id, event_type, body, status, max_attempts, created_at)
         VALUES ($1, $2, $3, $1, 'booking.created', '{}', $4, 8, $5)`,
        [id, webhook.id, org, status, ago(days)],
      );
      await db.query(
        `INSERT INTO webhook_attempts (delivery_id, organization_id, attempt, started_at, duration_ms) VALUES ($1, $2, 1, $3, 5)`,
        [id, org, ago(days)],
      );
    }

    const counts = await t.app.get(PeriodicJobs).runOnce();

    expect(counts).toMatchObject({ 'mail-retention': 1, 'domain-event-retention': 1, 'webhook-delivery-retention': 2 });
    expect(await ids('mail_outbox')).toEqual(['mail_failed_old', 'mail_pending_old', 'mail_sent_new']);
    expect(await ids('domain_events')).toEqual(['evt_dispatched_new', 'evt_waiting_old']);
    expect(await ids('webhook_deliveries')).toEqual(['del_pending_old', 'del_succeeded_new']);
    const attempts = (await db.query('SELECT delivery_id FROM webhook_attempts ORDER BY delivery_id')) as { delivery_id: string }[];
    expect(attempts.map((row) => row.delivery_id)).toEqual(['del_pending_old', 'del_succeeded_new']);
  });

  it('removes idempotency records once expired on the Clock, not on the wall clock', async () => {
    const owner = await registerOwner(t.http);
    await db.query('DELETE FROM idempotency_keys');
    for (const [key, expiresAt] of [
      ['expired', new Date(clock.now().getTime() - 1000)],
      ['live', new Date(clock.now().getTime() + 3600_000)],
    ] as const) {
      await db.query(
        `INSERT INTO idempotency_keys (organization_id, livemode, key, fingerprint, response_status, response_body, created_at, expires_at)
         VALUES ($1, true, $2, 'f', 201, '{}', $3, $4)`,
        [owner.organizationId, key, ago(1), expiresAt],
      );
    }
    expect((await t.app.get(PeriodicJobs).runOnce())['idempotency-cleanup']).toBe(1);
    expect((await db.query('SELECT key FROM idempotency_keys')) as { key: string }[]).toEqual([{ key: 'live' }]);
    clock.advance(2 * 3600_000);
    expect((await t.app.get(PeriodicJobs).runOnce())['idempotency-cleanup']).toBe(1);
    expect(await db.query('SELECT key FROM idempotency_keys')).toEqual([]);
  });
});
