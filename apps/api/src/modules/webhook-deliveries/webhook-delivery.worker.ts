import { setMaxListeners } from 'node:events';
import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { AppConfig } from '@app/common';
import { describeSendError } from '@app/common';
import { GroupCommit, JobLoop, type TickResult } from '../../jobs/index.js';
import { activeSpanLink, contextOfTraceParent, inSpan, type Span, SpanKind, SpanStatusCode } from '../../tracing/spans.js';
import { Metrics } from '../../metrics/index.js';
import { decideOutcome } from './retry-policy.js';
import { WebhookHttpClient } from './webhook-http.js';
import {
  type AttemptRecord,
  type ClaimedDelivery,
  type RecordedOutcome,
  WEBHOOK_DELIVERIES_CHANNEL,
  WebhookQueue,
} from '../webhooks/index.js';

/** Attempts in flight per instance; more instances share the work through the leases. */
const CONCURRENCY = 32;
const POLL_INTERVAL_MS = 5_000;
/** Time to record the outcome after an attempt's own timeout; the lease covers both. */
const LEASE_MARGIN_SECONDS = 5;
/** On shutdown, attempts still running after this are interrupted and handed back. */
const SHUTDOWN_GRACE_MS = 5_000;

/**
 * Sends due deliveries: claim (one statement, leased), sign and POST (no transaction open), record the
 * outcome and the attempt log. At least once: a crash between the POST and the record means the
 * delivery goes again when its lease ends; receivers dedupe by `webhook-id`.
 */
/** What a delivery whose signing secret no configured key opens records, and the log says once for it. */
export const SECRET_UNREADABLE =
  'Signing secret cannot be opened with ENCRYPTION_KEY or ENCRYPTION_KEY_PREVIOUS: the delivery waits for the key that sealed it';
/** How long such a delivery waits before it is tried again. */
const SECRET_UNREADABLE_RETRY_SECONDS = 600;

@Injectable()
export class WebhookDeliveryWorker implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(WebhookDeliveryWorker.name);
  private readonly loop: JobLoop;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly interrupt = new AbortController();
  private readonly leaseSeconds: number;
  private readonly outcomes: GroupCommit<AttemptRecord>;
  private http: WebhookHttpClient | undefined;

  constructor(
    private readonly config: AppConfig,
    private readonly repository: WebhookQueue,
    private readonly metrics: Metrics,
  ) {
    this.leaseSeconds = Math.ceil(config.webhookTimeoutMs / 1000) + LEASE_MARGIN_SECONDS;
    this.outcomes = new GroupCommit((records) => repository.recordAttempts(records));
    // Every attempt in flight listens for the interrupt.
    setMaxListeners(CONCURRENCY + 1, this.interrupt.signal);
    this.loop = new JobLoop({
      name: 'webhook-delivery',
      logger: this.logger,
      pollIntervalMs: POLL_INTERVAL_MS,
      listen: config.databaseUrl ? { databaseUrl: config.databaseUrl, channel: WEBHOOK_DELIVERIES_CHANNEL } : undefined,
      tick: () => this.claimAndStart(),
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.runWorkers || !this.config.databaseUrl) return;
    this.http = new WebhookHttpClient(this.config.webhookAllowPrivateUrls);
    await this.loop.start();
  }

  /** Attempts finish within the grace period or are released (due again at once) before the pool closes. */
  async onApplicationShutdown(): Promise<void> {
    await this.loop.stop();
    if (this.inFlight.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, SHUTDOWN_GRACE_MS)));
      await Promise.race([Promise.allSettled([...this.inFlight]), grace]);
      clearTimeout(timer);
      this.interrupt.abort();
      await Promise.allSettled([...this.inFlight]);
    }
    this.http?.close();
  }

  wake(): void {
    this.loop.wake();
  }

  /** Fills the free attempt slots with due deliveries; with every slot busy, the first attempt to finish wakes the loop. */
  private async claimAndStart(): Promise<TickResult> {
    const free = CONCURRENCY - this.inFlight.size;
    if (free <= 0 || !this.http) return undefined;
    const claimed = await this.repository.claimDue(free, this.leaseSeconds);
    for (const delivery of claimed) this.start(this.http, delivery);
    if (claimed.length > 0) return 'again';
    return (await this.repository.msUntilNextDue()) ?? undefined;
  }

  private start(http: WebhookHttpClient, delivery: ClaimedDelivery): void {
    const attempt: Promise<void> = this.traced(delivery, (span) => this.attempt(http, delivery, span))
      .catch((error: unknown) => {
        // The outcome was not recorded; the lease runs out and the delivery is attempted again.
        this.logger.warn({ msg: 'Could not record a webhook attempt', deliveryId: delivery.id, error: describeSendError(error).code });
      })
      .finally(() => {
        this.inFlight.delete(attempt);
        this.wake();
      });
    this.inFlight.add(attempt);
  }

  /**
   * A span per attempt (contract § 19), a child of the request that recorded the event (the outbox row kept its trace
   * context), linked to the round that claimed it; without that context (tracing was off then), a child of the round.
   */
  private traced(delivery: ClaimedDelivery, attempt: (span: Span) => Promise<void>): Promise<void> {
    const parent = contextOfTraceParent(delivery.traceParent);
    const attributes = {
      'webhook.id': delivery.webhookId,
      'webhook.delivery_id': delivery.id,
      'webhook.event_id': delivery.eventId,
      'webhook.attempt': delivery.attempts,
    };
    return inSpan('webhook attempt', { kind: SpanKind.CLIENT, parent, links: parent ? activeSpanLink() : [], attributes }, attempt);
  }

  private async attempt(http: WebhookHttpClient, delivery: ClaimedDelivery, span: Span): Promise<void> {
    const context = { deliveryId: delivery.id, webhookId: delivery.webhookId, eventId: delivery.eventId, attempt: delivery.attempts };
    let secret: string;
    try {
      secret = this.repository.openSecret(delivery);
    } catch {
      // Not the receiver's fault: the delivery waits (pending, the attempt not counted) for the key to come back.
      await this.outcomes.submit({
        claimed: delivery,
        outcome: { kind: 'on_hold', delaySeconds: SECRET_UNREADABLE_RETRY_SECONDS },
        log: { responseStatus: null, error: SECRET_UNREADABLE, durationMs: 0 },
      });
      if (delivery.lastError !== SECRET_UNREADABLE) this.logger.warn({ msg: SECRET_UNREADABLE, ...context });
      span.setAttribute('webhook.outcome', 'on_hold');
      return;
    }
    // Wall-clock time, not the injected Clock: receivers compare it with their own clock.
    const timestamp = new Date();
    const response = await http.post({
      url: delivery.url,
      body: delivery.body,
      headers: {
        'webhook-id': delivery.eventId,
        'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
        'webhook-signature': new StandardWebhook(secret).sign(delivery.eventId, timestamp, delivery.body),
      },
      timeoutMs: this.config.webhookTimeoutMs,
      interrupt: this.interrupt.signal,
    });
    const outcome = await this.record(
      delivery,
      response.status,
      response.retryAfter,
      response.error,
      response.durationMs,
      response.interrupted,
    );
    const details = { ...context, status: response.status, durationMs: response.durationMs, outcome: outcome.kind };
    span.setAttribute('webhook.outcome', outcome.kind);
    if (response.status !== null) span.setAttribute('http.response.status_code', response.status);
    if (outcome.kind !== 'succeeded' && outcome.kind !== 'released') span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.kind });
    if (outcome.kind === 'succeeded') this.logger.log({ msg: 'Webhook delivered', ...details });
    else if (outcome.kind === 'retry')
      this.logger.warn({
        msg: 'Webhook attempt failed; will retry',
        ...details,
        error: response.error,
        retryInSeconds: outcome.delaySeconds,
      });
    else this.logger.warn({ msg: 'Webhook attempt failed', ...details, error: response.error });
  }

  private async record(
    delivery: ClaimedDelivery,
    status: number | null,
    retryAfter: string | string[] | undefined,
    error: string | null,
    durationMs: number,
    interrupted = false,
  ): Promise<RecordedOutcome> {
    const outcome: RecordedOutcome = interrupted
      ? { kind: 'released' }
      : decideOutcome({
          status,
          retryAfter,
          attempts: delivery.attempts,
          maxAttempts: delivery.maxAttempts,
          schedule: this.config.webhookRetrySchedule,
          nowMs: Date.now(),
        });
    await this.outcomes.submit({ claimed: delivery, outcome, log: { responseStatus: status, error, durationMs } });
    this.metrics.webhookAttempt(outcome.kind);
    return outcome;
  }
}
