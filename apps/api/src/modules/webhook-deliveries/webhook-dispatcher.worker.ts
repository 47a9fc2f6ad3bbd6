import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig, Clock, daysBefore, newId } from '@app/common';
import { type ClaimedEvent, DOMAIN_EVENTS_CHANNEL, DomainEvents } from '../outbox/index.js';
import { WebhookDeliveryWorker } from './webhook-delivery.worker.js';
import {
  isSubscribed,
  type PendingEvent,
  type QueuedDeliveryRow,
  serializePayload,
  type SubscribedWebhook,
  WebhookQueue,
} from '../webhooks/index.js';
import { TransactionHost } from '@app/database';
import { JobLoop, nextRetrySeconds, PeriodicJobs, RETENTION_INTERVAL_MS } from '../../jobs/index.js';

/** Catches events whose notification was missed (listener down, another instance's crash). */
const POLL_INTERVAL_MS = 5_000;
const BATCH_SIZE = 200;
/** A round's lease: far longer than a round takes; what a killed dispatcher had claimed is due again when it ends. */
const LEASE_SECONDS = 30;

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

/** What one fan-out round did with the events it claimed. */
export interface DispatchRound {
  claimed: number;
  dispatched: number;
  /** Events whose fan-out failed: retried alone on OUTBOX_RETRY_SCHEDULE, then parked with the error. */
  failed: number;
  /** The soonest retry it scheduled, ms (the loop's next look), or null. */
  retryInMs: number | null;
}

/** A claim of the round went stale (its lease ran out and another dispatcher took the event): the round writes nothing. */
class StaleClaim extends Error {}

/**
 * Turns committed domain events into deliveries, on the one LeaseQueue: a round leases up to BATCH_SIZE due events
 * (instances share them) and, in one transaction, inserts their deliveries and marks them dispatched, fenced by the
 * leases, so an event is fanned out exactly once: a crash rolls the transaction back and the event is due again when its
 * lease ends; a dispatcher whose lease another has taken over writes nothing. When that transaction fails, each event
 * goes again in a transaction of its own, so one bad event fails alone: it is retried on OUTBOX_RETRY_SCHEDULE and then
 * parked (failed_at) with its error, while every other event goes out.
 */
@Injectable()
export class WebhookDispatcher implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(WebhookDispatcher.name);
  private readonly loop: JobLoop;

  constructor(
    private readonly tx: TransactionHost,
    private readonly config: AppConfig,
    private readonly repository: WebhookQueue,
    private readonly deliveries: WebhookDeliveryWorker,
    private readonly events: DomainEvents,
    clock: Clock,
    jobs: PeriodicJobs,
  ) {
    jobs.register('webhook-delivery-retention', RETENTION_INTERVAL_MS, () => {
      const now = clock.now();
      return repository.retain(now, daysBefore(now, config.retentionDays));
    });
    this.loop = new JobLoop({
      name: 'webhook-dispatcher',
      logger: this.logger,
      pollIntervalMs: POLL_INTERVAL_MS,
      listen: config.databaseUrl ? { databaseUrl: config.databaseUrl, channel: DOMAIN_EVENTS_CHANNEL } : undefined,
      tick: async () => {
        const round = await this.dispatchBatch();
        if (round.dispatched > 0) this.deliveries.wake();
        if (round.claimed === BATCH_SIZE) return 'again';
        return round.retryInMs ?? undefined;
      },
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.runWorkers && this.config.databaseUrl) await this.loop.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.loop.stop();
  }

  /** Fans out one round: one claim, then one transaction, or one per event when that one fails. */
  async dispatchBatch(): Promise<DispatchRound> {
    const claimed = await this.events.claimUndispatched(BATCH_SIZE, LEASE_SECONDS);
    const round: DispatchRound = { claimed: claimed.length, dispatched: 0, failed: 0, retryInMs: null };
    if (claimed.length === 0) return round;
    try {
      round.dispatched = await this.fanOut(claimed);
      return round;
    } catch (error) {
      if (claimed.length === 1) {
        await this.failed(round, claimed[0], error);
        return round;
      }
    }
    // Some event's statement failed the round: each goes again alone, so only that one waits for its retry.
    for (const one of claimed) {
      try {
        round.dispatched += await this.fanOut([one]);
      } catch (error) {
        await this.failed(round, one, error);
      }
    }
    return round;
  }

  /** The events' deliveries and their dispatch, in one transaction; StaleClaim (and nothing written) when a lease went stale. */
  private async fanOut(claimed: readonly ClaimedEvent[]): Promise<number> {
    const maxAttempts = this.config.webhookRetrySchedule.length + 1;
    return this.tx.transaction(async () => {
      // First the fenced outcomes: a stale claim rolls the round back before anything is written for it.
      if ((await this.events.markDispatched(claimed)) < claimed.length) throw new StaleClaim('an event’s lease went stale');
      const webhooks = await this.repository.activeWebhooks([...new Set(claimed.map((e) => e.organizationId))]);
      await this.repository.insertDeliveries(fanOut([...claimed], webhooks, maxAttempts));
      return claimed.length;
    });
  }

  /** Its fan-out failed: retried after the schedule's next delay, or parked with the error when the retries are spent. */
  private async failed(round: DispatchRound, one: ClaimedEvent, error: unknown): Promise<void> {
    if (error instanceof StaleClaim) return;
    if (await this.events.setBack(one, error)) {
      this.logger.warn({
        msg: 'Domain event fan-out met a database outage; not counted, goes again',
        eventId: one.id,
        error: errorCode(error),
      });
      return;
    }
    const message = (error instanceof Error ? error.message : String(error)).slice(0, 500);
    const delay = nextRetrySeconds(this.config.outboxRetrySchedule, one.attempts);
    const written = delay === null ? await this.events.park(one, message) : await this.events.retry(one, delay, message);
    if (!written) return;
    round.failed += 1;
    if (delay !== null) round.retryInMs = Math.min(round.retryInMs ?? Infinity, Math.ceil(delay * 1000));
    this.logger.warn({
      msg: delay === null ? 'Domain event fan-out failed; parked' : 'Domain event fan-out failed; will retry',
      eventId: one.id,
      error: errorCode(error),
    });
  }
}

function errorCode(error: unknown): string {
  if (typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string') return error.code;
  return error instanceof Error ? error.name : 'unknown';
}
