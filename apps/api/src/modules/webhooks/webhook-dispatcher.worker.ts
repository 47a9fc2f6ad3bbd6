import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig, Clock, daysBefore, newId } from '@app/common';
import { DOMAIN_EVENTS_CHANNEL, DomainEvents } from '../outbox/index.js';
import { WebhookDeliveryWorker } from './webhook-delivery.worker.js';
import { isSubscribed, serializePayload } from './webhook-events.js';
import { type PendingEvent, type QueuedDeliveryRow, type SubscribedWebhook, WebhookQueueRepository } from './webhook-queue.repository.js';
import { TransactionHost } from '@app/database';
import { JobLoop, PeriodicJobs, RETENTION_INTERVAL_MS } from '../../jobs/index.js';

/** Catches events whose notification was missed (listener down, another instance's crash). */
const POLL_INTERVAL_MS = 5_000;
const BATCH_SIZE = 200;

/** One delivery per active, subscribed webhook of the event's organization and mode. */
export function fanOut(events: PendingEvent[], webhooks: SubscribedWebhook[], maxAttempts: number): QueuedDeliveryRow[] {
  const rows: QueuedDeliveryRow[] = [];
  for (const event of events) {
    let body: string | undefined;
    for (const webhook of webhooks) {
      if (webhook.organizationId !== event.organizationId || webhook.livemode !== event.livemode) continue;
      if (!isSubscribed(webhook.events, event.type)) continue;
      body ??= serializePayload({
        id: event.id,
        type: event.type,
        createdAt: event.createdAt.toISOString(),
        livemode: event.livemode,
        data: event.data,
      });
      rows.push({
        id: newId('whdel'),
        webhookId: webhook.id,
        organizationId: event.organizationId,
        eventId: event.id,
        eventType: event.type,
        body,
        maxAttempts,
        traceParent: event.traceParent,
      });
    }
  }
  return rows;
}

/**
 * Turns committed domain events into deliveries. Claiming the events, inserting their deliveries and
 * marking them dispatched happen in one transaction, so an event is fanned out exactly once: a crash
 * rolls it all back, and SKIP LOCKED keeps other instances on other events meanwhile.
 */
@Injectable()
export class WebhookDispatcher implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(WebhookDispatcher.name);
  private readonly loop: JobLoop;

  constructor(
    private readonly tx: TransactionHost,
    private readonly config: AppConfig,
    private readonly repository: WebhookQueueRepository,
    private readonly deliveries: WebhookDeliveryWorker,
    private readonly events: DomainEvents,
    clock: Clock,
    jobs: PeriodicJobs,
  ) {
    jobs.register('webhook-delivery-retention', RETENTION_INTERVAL_MS, () =>
      repository.deleteFinishedBefore(daysBefore(clock.now(), config.retentionDays)),
    );
    this.loop = new JobLoop({
      name: 'webhook-dispatcher',
      logger: this.logger,
      pollIntervalMs: POLL_INTERVAL_MS,
      listen: config.databaseUrl ? { databaseUrl: config.databaseUrl, channel: DOMAIN_EVENTS_CHANNEL } : undefined,
      tick: async () => {
        const dispatched = await this.dispatchBatch();
        if (dispatched > 0) this.deliveries.wake();
        return dispatched === BATCH_SIZE ? 'again' : undefined;
      },
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.runWorkers && this.config.databaseUrl) await this.loop.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.loop.stop();
  }

  /** Fans out one batch; returns how many events it took. */
  async dispatchBatch(): Promise<number> {
    const maxAttempts = this.config.webhookRetrySchedule.length + 1;
    return this.tx.transaction(async () => {
      const events = await this.events.claimUndispatched(BATCH_SIZE);
      if (events.length === 0) return 0;
      const webhooks = await this.repository.activeWebhooks([...new Set(events.map((e) => e.organizationId))]);
      await this.repository.insertDeliveries(fanOut(events, webhooks, maxAttempts));
      await this.events.markDispatched(events.map((e) => e.id));
      return events.length;
    });
  }
}
