import { DataSource } from 'typeorm';
import { startTestApp, type TestApp } from './support/app.js';
import { registerOwner } from './support/factories.js';
import { createWebhook, eventually, recordEvents, WebhookReceiver } from './support/webhooks.js';

const ORGANIZATIONS = 3;
const PER_ORGANIZATION = 100;

/**
 * One queue (docs/contributing/architecture.md § Background work): the outbox dispatcher's outcomes are per event. 300 domain events
 * of three organizations wait to be fanned out to their webhooks, and one of them cannot be: the delivery table refuses
 * its body (a check planted in this file's database). Its round rolls back; every other event is fanned out exactly
 * once, and the bad one is retried on its own schedule, then parked with its error, no delivery of it written.
 */
describe('outbox dispatcher: a poison event among 300', () => {
  let api: TestApp;
  let db: DataSource;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    api = await startTestApp({ env: { OUTBOX_RETRY_SCHEDULE: '0.2,0.2' } });
    db = api.app.get(DataSource);
  }, 60_000);

  afterAll(async () => {
    await api?.close();
    await receiver?.stop();
  });

  const count = async (sql: string, params: unknown[] = []): Promise<number> => (await db.query(sql, params))[0].n as number;

  it('fans out every other event once and parks the poison one with its error after its retries', async () => {
    const organizations: string[] = [];
    for (let i = 0; i < ORGANIZATIONS; i++) {
      const owner = await registerOwner(api.http);
      await createWebhook(api.http, { token: owner.accessToken }, { url: receiver.url(`/org${i}`), events: ['booking.created'] });
      organizations.push(owner.organizationId);
    }
    await db.query(`ALTER TABLE webhook_deliveries ADD CONSTRAINT test_poison_event CHECK (body NOT LIKE '%"poison":true%')`);
    const poisonIds: string[] = [];
    for (const [n, organizationId] of organizations.entries()) {
      const ids = await recordEvents(
        api,
        Array.from({ length: PER_ORGANIZATION }, (_, i) => ({
          organizationId,
          type: 'booking.created' as const,
          data: n === 1 && i === 50 ? { poison: true } : { n: i },
        })),
      );
      if (n === 1) poisonIds.push(ids[50]);
    }
    const total = ORGANIZATIONS * PER_ORGANIZATION;

    await eventually(
      async () => ((await count(`SELECT count(*)::int AS n FROM domain_events WHERE failed_at IS NOT NULL`)) === 1 ? true : undefined),
      30_000,
      'the poison event parked',
    );
    expect(await count(`SELECT count(*)::int AS n FROM domain_events WHERE dispatched_at IS NOT NULL`)).toBe(total - 1);
    // Exactly once: one delivery per fanned-out event, none of the poison one.
    expect(await count(`SELECT count(*)::int AS n FROM webhook_deliveries`)).toBe(total - 1);
    expect(await count(`SELECT count(DISTINCT event_id)::int AS n FROM webhook_deliveries`)).toBe(total - 1);
    expect(await count(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE event_id = $1`, poisonIds)).toBe(0);
    // The poison one: three attempts (the first and two retries), its error, its lease ended.
    const [poison] = await db.query(`SELECT attempts, last_error, dispatched_at, locked_until FROM domain_events WHERE id = $1`, poisonIds);
    expect(poison).toMatchObject({ attempts: 3, dispatched_at: null, locked_until: null });
    expect(poison.last_error).toMatch(/test_poison_event/);
    // The others went out in full to the receivers.
    await eventually(async () => (receiver.received.length >= total - 1 ? true : undefined), 30_000, 'every other event delivered');
    expect(new Set(receiver.received.map((r) => r.payload.id)).size).toBe(total - 1);
  }, 60_000);
});
