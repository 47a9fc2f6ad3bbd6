export { WebhooksModule } from './webhooks.module.js';
export { WebhookQueue } from './webhook-queue.service.js';
export type {
  AttemptLog,
  AttemptRecord,
  ClaimedDelivery,
  PendingEvent,
  QueuedDeliveryRow,
  RecordedOutcome,
  SubscribedWebhook,
} from './webhook-queue.repository.js';
export { WEBHOOK_DELIVERIES_CHANNEL } from './webhooks.repository.js';
export { isSubscribed, serializePayload } from './webhook-events.js';
