import { fanOut } from './webhook-dispatcher.worker.js';
import type { PendingEvent, SubscribedWebhook } from '../webhooks/index.js';

const event = (id: string, organizationId: string, livemode: boolean, type: string): PendingEvent => ({
  id,
  organizationId,
  livemode,
  type,
  data: { booking: { id: 'bkg_1' } },
  createdAt: new Date('2026-03-02T09:00:00.000Z'),
  traceParent: `00-${'ab'.repeat(16)}-${'cd'.repeat(8)}-01`,
});
const webhook = (id: string, organizationId: string, livemode: boolean, events: string[]): SubscribedWebhook => ({
  id,
  organizationId,
  livemode,
  events,
});

describe('fanOut', () => {
  const webhooks = [
    webhook('wh_all', 'org_a', true, ['*']),
    webhook('wh_bookings', 'org_a', true, ['booking.created']),
    webhook('wh_members', 'org_a', true, ['member.invited']),
    webhook('wh_sandbox', 'org_a', false, ['*']),
    webhook('wh_other_org', 'org_b', true, ['*']),
  ];

  it('makes one delivery per subscribed endpoint of the same organization and mode', () => {
    const rows = fanOut(
      [event('whevt_1', 'org_a', true, 'booking.created'), event('whevt_2', 'org_a', false, 'member.invited')],
      webhooks,
      4,
    );
    expect(rows.map((r) => `${r.eventId} → ${r.webhookId}`)).toEqual(['whevt_1 → wh_all', 'whevt_1 → wh_bookings', 'whevt_2 → wh_sandbox']);
    expect(rows.every((r) => r.maxAttempts === 4 && /^whdel_/.test(r.id))).toBe(true);
  });

  it('stores the payload as receivers get it', () => {
    const [row] = fanOut([event('whevt_1', 'org_b', true, 'booking.created')], webhooks, 4);
    expect(row.body).toBe(
      '{"id":"whevt_1","type":"booking.created","createdAt":"2026-03-02T09:00:00.000Z","livemode":true,"data":{"booking":{"id":"bkg_1"}}}',
    );
  });

  it('gives every delivery the trace context of the request that recorded its event (its attempts join that trace)', () => {
    const rows = fanOut([event('whevt_1', 'org_a', true, 'booking.created')], webhooks, 4);
    expect(rows.map((r) => r.traceParent)).toEqual([
      `00-${'ab'.repeat(16)}-${'cd'.repeat(8)}-01`,
      `00-${'ab'.repeat(16)}-${'cd'.repeat(8)}-01`,
    ]);
  });
});
