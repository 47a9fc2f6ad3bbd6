import { DataSource } from 'typeorm';
import { startTestApp, type TestApp } from './support/app.js';
import { registerOwner } from './support/factories.js';
import { attemptLog, createWebhook, eventually, recordEvents, WebhookReceiver } from './support/webhooks.js';

interface DeliveryRow {
  id: string;
  event_id: string;
  webhook_id: string;
  status: string;
  attempts: number;
  max_attempts: number;
  locked_until: Date | null;
}

async function deliveryRows(t: TestApp): Promise<DeliveryRow[]> {
  return t.app
    .get(DataSource)
    .query(`SELECT id, event_id, webhook_id, status, attempts, max_attempts, locked_until FROM webhook_deliveries`);
}

describe('two instances on one database', () => {
  it('share the work without ever running one delivery twice at once, and deliver every event', async () => {
    const receiver = await WebhookReceiver.start();
    // Immediate retries make the instances race for the same rows as often as possible.
    const env = { WEBHOOK_RETRY_SCHEDULE: '0,0,0.1,0.1,0.1,0.1', WEBHOOK_TIMEOUT_MS: '5000' };
    const a = await startTestApp({ env });
    const b = await startTestApp({ databaseUrl: a.databaseUrl, env });
    try {
      const owner = await registerOwner(a.http);
      let requests = 0;
      for (const path of ['/one', '/two']) {
        const created = await createWebhook(a.http, { token: owner.accessToken }, { url: receiver.url(path), events: ['*'] });
        receiver.expectSecret(path, created.secret);
        receiver.respond(path, () => ({ status: ++requests % 4 === 0 ? 503 : 200, delayMs: requests % 7 === 0 ? 60 : 0 }));
      }
      const eventIds: string[] = [];
      for (let batch = 0; batch < 15; batch++) {
        const events = Array.from({ length: 10 }, () => ({ organizationId: owner.organizationId, type: 'booking.created' as const }));
        eventIds.push(...(await recordEvents(batch % 2 ? b : a, events)));
      }

      await receiver.waitFor(
        () => eventIds.every((id) => receiver.ids('/one').has(id) && receiver.ids('/two').has(id)),
        15000,
        'every event at both endpoints',
      );
      const rows = await eventually(
        async () => {
          const all = await deliveryRows(a);
          return all.length === 300 && all.every((r) => r.status === 'succeeded') ? all : undefined;
        },
        5000,
        'every delivery to be marked succeeded',
      );
      expect(receiver.overlaps).toEqual([]);
      expect(receiver.unverified()).toEqual([]);
      // Exactly one request per recorded attempt: no attempt ran twice, none went unrecorded.
      const requestsPerDelivery = new Map<string, number>();
      for (const r of receiver.received)
        requestsPerDelivery.set(`${r.path} ${r.webhookId}`, (requestsPerDelivery.get(`${r.path} ${r.webhookId}`) ?? 0) + 1);
      const total = rows.reduce((sum, r) => sum + r.attempts, 0);
      expect(receiver.received.length).toBe(total);
      expect(rows.some((r) => r.attempts > 1)).toBe(true);
      expect(Math.max(...requestsPerDelivery.values())).toBeLessThanOrEqual(7);
    } finally {
      await b.close();
      await a.close();
      await receiver.stop();
    }
  }, 30_000);
});

describe('webhook worker shutdown', () => {
  it('finishes an attempt in flight, and releases one that outlasts the grace period so another instance delivers it', async () => {
    const receiver = await WebhookReceiver.start();
    const env = { WEBHOOK_RETRY_SCHEDULE: '1,1,1', WEBHOOK_TIMEOUT_MS: '20000' };
    const api = await startTestApp({ env: { ...env, RUN_WORKERS: 'false' } });
    try {
      const owner = await registerOwner(api.http);
      const slow = await createWebhook(api.http, { token: owner.accessToken }, { url: receiver.url('/slow'), events: ['member.joined'] });
      const stuck = await createWebhook(
        api.http,
        { token: owner.accessToken },
        { url: receiver.url('/stuck'), events: ['member.removed'] },
      );
      receiver.expectSecret('/slow', slow.secret);
      receiver.expectSecret('/stuck', stuck.secret);
      receiver.respond('/slow', () => ({ status: 200, delayMs: 1000 }));
      receiver.respond('/stuck', (_req, nth) => (nth === 1 ? { status: 200, hang: true } : { status: 200 }));

      const worker = await startTestApp({ databaseUrl: api.databaseUrl, env });
      const [slowEvent, stuckEvent] = await recordEvents(api, [
        { organizationId: owner.organizationId, type: 'member.joined' },
        { organizationId: owner.organizationId, type: 'member.removed' },
      ]);
      await receiver.waitFor(
        () => receiver.at('/slow').length === 1 && receiver.at('/stuck').length === 1,
        5000,
        'both attempts in flight',
      );
      const started = Date.now();
      await worker.close();
      expect(Date.now() - started).toBeLessThan(8000);

      const rows = await deliveryRows(api);
      const slowRow = rows.find((r) => r.event_id === slowEvent)!;
      const stuckRow = rows.find((r) => r.event_id === stuckEvent)!;
      expect(slowRow).toMatchObject({ status: 'succeeded', attempts: 1, locked_until: null });
      // Released: no lease, due now, and the interrupted attempt does not use up the schedule.
      expect(stuckRow).toMatchObject({ status: 'pending', attempts: 1, max_attempts: 5, locked_until: null });
      expect(await attemptLog(api, stuckRow.id)).toEqual([
        expect.objectContaining({ attempt: 1, response_status: null, error: 'Interrupted by shutdown' }),
      ]);

      const second = await startTestApp({ databaseUrl: api.databaseUrl, env });
      try {
        await receiver.waitFor(() => receiver.at('/stuck').length === 2, 5000, 'the released delivery');
        expect(receiver.at('/stuck').map((r) => r.webhookId)).toEqual([stuckEvent, stuckEvent]);
        await eventually(
          async () => ((await deliveryRows(api)).find((r) => r.event_id === stuckEvent)?.status === 'succeeded' ? true : undefined),
          3000,
          'success',
        );
      } finally {
        await second.close();
      }
      expect(receiver.unverified()).toEqual([]);
    } finally {
      await api.close();
      await receiver.stop();
    }
  }, 30_000);
});
