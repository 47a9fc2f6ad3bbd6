import { NestFactory } from '@nestjs/core';
import { DataSource } from 'typeorm';
import { FixedClock } from '@app/common';
import { PeriodicJobs } from '../apps/api/src/jobs/index.js';
import { WorkerModule } from '../apps/worker/src/worker.module.js';
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

  it('clears the body of finished calendar write-backs older than the retention period and keeps the rows', async () => {
    const owner = await registerOwner(t.http);
    const org = owner.organizationId;
    const ics = 'BEGIN:VCALENDAR\r\nATTENDEE;CN=Ann Example:mailto:ann@example.com\r\nEND:VCALENDAR';
    for (const [id, action, status, days] of [
      ['calw_done_old', 'put', 'done', 31],
      ['calw_failed_old', 'put', 'failed', 31],
      ['calw_done_new', 'put', 'done', 29],
      ['calw_pending_old', 'put', 'pending', 31],
      ['calw_delete_old', 'delete', 'done', 31],
    ] as const) {
      await db.query(
        `INSERT INTO calendar_writes (id, organization_id, booking_id, user_id, action, ics, status, attempts, next_attempt_at, created_at)
         VALUES ($1, $2, $1, $3, $4, $5, $6, 1, $7, $7)`,
        [id, org, owner.userId, action, action === 'put' ? ics : null, status, ago(days)],
      );
    }
    const bodies = async (): Promise<Record<string, boolean>> =>
      Object.fromEntries(
        (
          (await db.query(`SELECT id, ics IS NOT NULL AS body FROM calendar_writes WHERE organization_id = $1`, [org])) as {
            id: string;
            body: boolean;
          }[]
        ).map((row) => [row.id, row.body]),
      );

    expect((await t.app.get(PeriodicJobs).runOnce())['calendar-write-retention']).toBe(2);

    // Every row stays (an erasure reads a booking's latest write to learn whether the calendar has it); only old finished bodies go.
    expect(await bodies()).toEqual({
      calw_done_old: false,
      calw_failed_old: false,
      calw_done_new: true,
      calw_pending_old: true,
      calw_delete_old: false,
    });
    expect((await t.app.get(PeriodicJobs).runOnce())['calendar-write-retention']).toBe(0);
  });

  it('the worker runs the sweeps of sessions and login failures too (API instances may run no jobs)', async () => {
    const worker = await NestFactory.createApplicationContext(WorkerModule.register(t.config, clock), { logger: false });
    try {
      expect(Object.keys(await worker.get(PeriodicJobs).runOnce())).toEqual(
        expect.arrayContaining(['session-cleanup', 'login-failure-cleanup', 'calendar-write-retention']),
      );
    } finally {
      await worker.close();
    }
  });

  // Last: it moves the Clock two months on.
  it('deletes sessions once revoked or expired more than the retention period ago, and keeps live ones', async () => {
    const owner = await registerOwner(t.http);
    const login = async (): Promise<{ refreshToken: string; accessToken: string }> => {
      const res = await t.http.post('/v1/auth/login', { email: owner.email, password: owner.password });
      expect(res.status).toBe(200);
      return res.body;
    };
    const sessionOf = (token: string): string => token.split('.')[0];
    const refresh = (refreshToken: string) => t.http.post('/v1/auth/refresh', { refreshToken });
    const sessions = async (): Promise<string[]> =>
      ((await db.query(`SELECT id FROM sessions WHERE user_id = $1 ORDER BY id`, [owner.userId])) as { id: string }[]).map((r) => r.id);
    const sweep = async (): Promise<number> => (await t.app.get(PeriodicJobs).runOnce())['session-cleanup'];

    // Day 0: the registration's session, one rotated once, and one signed out (revoked).
    const first = sessionOf(owner.refreshToken);
    const second = await login();
    const rotated = await refresh(second.refreshToken);
    expect(rotated.status).toBe(200);
    const signedOut = await login();
    expect((await t.http.post('/v1/auth/logout', {}, { token: signedOut.accessToken })).status).toBe(204);
    // Day 29: a fresh session (it expires on day 59).
    clock.advance(29 * DAY);
    const live = await login();
    const all = [first, sessionOf(second.refreshToken), sessionOf(signedOut.refreshToken), sessionOf(live.refreshToken)].sort();
    await sweep();
    expect(await sessions()).toEqual(all);

    // Day 30 and a minute: the revoked one goes; the others expired a minute ago (or live on) and stay.
    clock.advance(DAY + 60_000);
    expect(await sweep()).toBeGreaterThanOrEqual(1);
    expect(await sessions()).toEqual(all.filter((id) => id !== sessionOf(signedOut.refreshToken)));
    // A token of a deleted session is refused like one of a revoked session; an expired one's too.
    expect((await refresh(signedOut.refreshToken)).status).toBe(401);
    expect((await refresh(rotated.body.refreshToken)).status).toBe(401);
    expect((await refresh(live.refreshToken)).status).toBe(200);

    // Day 60 and a minute: the sessions that expired on day 30 go; the one that expired yesterday stays.
    clock.advance(30 * DAY);
    expect(await sweep()).toBeGreaterThanOrEqual(2);
    expect(await sessions()).toEqual([sessionOf(live.refreshToken)]);
    expect((await refresh(second.refreshToken)).status).toBe(401);
  });
});
