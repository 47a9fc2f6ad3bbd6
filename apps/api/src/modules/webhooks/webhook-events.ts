import { DOMAIN_EVENT_TYPES } from '../outbox/index.js';

/** Sent by `POST /webhooks/:id/test` to that one endpoint; never recorded as a domain event. */
export const WEBHOOK_TEST_EVENT = 'webhook.test';
export const ALL_EVENTS_WILDCARD = '*';

/** What `events` may list (api-rules.md § Webhooks). */
export const SUBSCRIBABLE_EVENTS: readonly string[] = [...DOMAIN_EVENT_TYPES, WEBHOOK_TEST_EVENT, ALL_EVENTS_WILDCARD];

export function isSubscribed(events: readonly string[], type: string): boolean {
  return events.includes(type) || events.includes(ALL_EVENTS_WILDCARD);
}

/** The body receivers get; serialized once, so every attempt sends the same bytes. */
export interface WebhookPayload {
  id: string;
  type: string;
  createdAt: string;
  livemode: boolean;
  data: Record<string, unknown>;
}

export function serializePayload(payload: WebhookPayload): string {
  return JSON.stringify({
    id: payload.id,
    type: payload.type,
    createdAt: payload.createdAt,
    livemode: payload.livemode,
    data: payload.data,
  });
}
