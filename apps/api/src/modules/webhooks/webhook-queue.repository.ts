import { Injectable, Logger } from '@nestjs/common';
import { WebhookDelivery } from './entities/webhook-delivery.entity.js';
import { Webhook } from './entities/webhook.entity.js';
import type { NewDeliveryRow } from './webhooks.repository.js';

/**
 * A delivery fanned out by the dispatcher, which handles the events of every organization at once; it keeps its
 * event's trace context.
 */
export type QueuedDeliveryRow = NewDeliveryRow & Pick<WebhookDelivery, 'organizationId' | 'traceParent'>;
import { TransactionHost } from '@app/database';
import { LeaseQueue, MonthlyPartitions } from '../../jobs/index.js';

interface DeliveryRow {
  id: string;
  organization_id: string;
  webhook_id: string;
  event_id: string;
  body: string;
  attempts: number;
  max_attempts: number;
  url: string;
  secret_ciphertext: string;
  last_attempt_at: Date;
  last_error: string | null;
  trace_parent: string | null;
}

export type { PendingEvent } from '../outbox/index.js';

export type SubscribedWebhook = Pick<Webhook, 'id' | 'organizationId' | 'livemode' | 'events'>;

/** A delivery leased to this worker, with what the attempt needs. */
export interface ClaimedDelivery {
  id: string;
  organizationId: string;
  webhookId: string;
  eventId: string;
  body: string;
  /** This attempt's number; also the token that proves the lease is still ours when recording. */
  attempts: number;
  maxAttempts: number;
  url: string;
  secretCiphertext: string;
  startedAt: Date;
  /** The error the previous attempt recorded, if any. */
  lastError: string | null;
  /** The trace of the request that recorded the event (tracing on): the attempt's span is a child of its span. */
  traceParent: string | null;
}

export type RecordedOutcome =
  | { kind: 'succeeded' }
  | { kind: 'gone' }
  | { kind: 'retry'; delaySeconds: number }
  | { kind: 'failed' }
  /** Interrupted by shutdown: due again at once, and the attempt does not count against the schedule. */
  | { kind: 'released' }
  /**
   * Not attempted: its secret cannot be opened by any configured key. Stays pending, due again after the delay, the
   * attempt not counted: nothing is failed as if the receiver had refused it (an operator restores the key).
   */
  | { kind: 'on_hold'; delaySeconds: number };

export interface AttemptLog {
  responseStatus: number | null;
  error: string | null;
  durationMs: number;
}

/** One finished (or interrupted) attempt, to be written with its consequence. */
export interface AttemptRecord {
  claimed: ClaimedDelivery;
  outcome: RecordedOutcome;
  log: AttemptLog;
}

/**
 * The worker's side of webhooks: the outbox of domain events in, leased deliveries out. Claims are
 * across organizations by nature; everything after a claim is addressed by the claimed row's ids and
 * organization. Every time here is the database's now(): tests freeze the Clock, and instances must
 * agree on when a lease ends and a retry is due.
 */
@Injectable()
export class WebhookQueueRepository {
  /** Due deliveries of active webhooks, with the webhook's URL and sealed secret for the attempt. */
  private readonly queue: LeaseQueue<DeliveryRow>;
  /**
   * The attempt log's months (docs/operating/partitions.md). An attempt starts after its delivery was made, so a month
   * in which no delivery made before its end is still pending holds only attempts of finished deliveries, which
   * retention removes anyway: it is dropped whole. Otherwise it stays (and its attempts go with their deliveries).
   */
  readonly attemptPartitions: MonthlyPartitions;

  constructor(private readonly tx: TransactionHost) {
    this.attemptPartitions = new MonthlyPartitions(tx, new Logger('WebhookAttemptRetention'), {
      table: 'webhook_attempts',
      column: 'started_at',
      stillNeeded: async (partition) => {
        const rows: unknown[] = await this.tx.reads.query(
          `SELECT 1 FROM webhook_deliveries WHERE status = 'pending' AND created_at < $1 LIMIT 1`,
          [partition.upper],
        );
        return rows.length > 0;
      },
    });
    this.queue = new LeaseQueue(tx, {
      table: 'webhook_deliveries',
      join: 'JOIN webhooks w ON w.id = c.webhook_id',
      waiting: `c.status = 'pending' AND w.active`,
      dueColumn: 'next_attempt_at',
      carry: 'w.url, w.secret_ciphertext',
      order: 'c.next_attempt_at',
      countsAttempts: true,
      onClaim: 'last_attempt_at = now()',
      returning: `q.id, q.organization_id, q.webhook_id, q.event_id, q.body, q.attempts, q.max_attempts, q.last_attempt_at,
                  q.last_error, q.trace_parent, due.url, due.secret_ciphertext`,
    });
  }

  async activeWebhooks(organizationIds: string[]): Promise<SubscribedWebhook[]> {
    if (organizationIds.length === 0) return [];
    return this.tx.transactional
      .createQueryBuilder(Webhook, 'w')
      .select(['w.id', 'w.organizationId', 'w.livemode', 'w.events'])
      .where('w.organizationId IN (:...organizationIds)', { organizationIds })
      .andWhere('w.active')
      .getMany();
  }

  async insertDeliveries(rows: QueuedDeliveryRow[]): Promise<void> {
    if (rows.length === 0) return;
    await this.tx.transactional.createQueryBuilder().insert().into(WebhookDelivery).values(rows).orIgnore().execute();
  }

  /**
   * Leases up to `limit` due deliveries of active webhooks in one statement. SKIP LOCKED lets instances
   * claim side by side; the lease (not the row lock, which ends with the statement) keeps the others
   * away during the attempt. Counting the attempt here means one that crashes its worker still counts.
   */
  async claimDue(limit: number, leaseSeconds: number): Promise<ClaimedDelivery[]> {
    const rows = await this.queue.claim(limit, leaseSeconds);
    return rows.map((r) => ({
      id: r.id,
      organizationId: r.organization_id,
      webhookId: r.webhook_id,
      eventId: r.event_id,
      body: r.body,
      attempts: r.attempts,
      maxAttempts: r.max_attempts,
      url: r.url,
      secretCiphertext: r.secret_ciphertext,
      startedAt: r.last_attempt_at,
      lastError: r.last_error,
      traceParent: r.trace_parent,
    }));
  }

  /**
   * Writes attempts and their consequences, any number in one statement (atomic, one round trip, one
   * commit: commits are what limit delivery throughput). Each row is guarded by its attempt number:
   * if the lease was lost and someone else claimed the delivery meanwhile, only the log row is written.
   * A manual retry during the attempt shows as next_attempt_at past the claim (last_attempt_at) and a
   * raised max_attempts; both are kept. A webhook deleted meanwhile leaves nothing to log against.
   * The table's key holds `started_at` (its partition key, docs/operating/partitions.md): NOT EXISTS keeps one row per
   * (delivery, attempt) as the old key did.
   */
  async recordAttempts(records: AttemptRecord[]): Promise<void> {
    if (records.length === 0) return;
    const column = <T>(pick: (record: AttemptRecord) => T): T[] => records.map(pick);
    await this.tx.outside('attempts are written after their sends, on their own').query(
      `WITH input AS (
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::text[], $6::float8[], $7::int[], $8::text[], $9::timestamptz[], $10::int[])
                    AS i(id, organization_id, webhook_id, attempt, kind, delay, response_status, error, started_at, duration_ms)
       ), outcome AS (
         UPDATE webhook_deliveries d
            SET status = CASE i.kind
                           WHEN 'succeeded' THEN 'succeeded'
                           WHEN 'gone' THEN 'failed'
                           WHEN 'failed' THEN CASE WHEN d.attempts < d.max_attempts THEN 'pending' ELSE 'failed' END
                           ELSE d.status END,
                next_attempt_at = CASE i.kind
                           WHEN 'retry' THEN CASE WHEN d.next_attempt_at > d.last_attempt_at THEN d.next_attempt_at
                                                  ELSE now() + make_interval(secs => i.delay) END
                           WHEN 'failed' THEN CASE WHEN d.attempts < d.max_attempts THEN d.next_attempt_at END
                           WHEN 'released' THEN now()
                           WHEN 'on_hold' THEN now() + make_interval(secs => i.delay)
                           END,
                max_attempts = d.max_attempts + CASE WHEN i.kind IN ('released', 'on_hold') THEN 1 ELSE 0 END,
                locked_until = NULL,
                response_status = i.response_status,
                last_error = i.error
           FROM input i
          WHERE d.id = i.id AND d.organization_id = i.organization_id AND d.attempts = i.attempt AND d.status = 'pending'
       ), disabled AS (
         UPDATE webhooks w SET active = false, updated_at = now()
           FROM input i
          WHERE i.kind = 'gone' AND w.id = i.webhook_id AND w.organization_id = i.organization_id
       )
       INSERT INTO webhook_attempts (delivery_id, attempt, organization_id, started_at, duration_ms, response_status, error)
       SELECT i.id, i.attempt, i.organization_id, i.started_at, i.duration_ms, i.response_status, i.error
         FROM input i
        WHERE EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.id = i.id)
          AND NOT EXISTS (SELECT 1 FROM webhook_attempts a WHERE a.delivery_id = i.id AND a.attempt = i.attempt)
       ON CONFLICT DO NOTHING`,
      [
        column((r) => r.claimed.id),
        column((r) => r.claimed.organizationId),
        column((r) => r.claimed.webhookId),
        column((r) => r.claimed.attempts),
        column((r) => r.outcome.kind),
        column((r) => (r.outcome.kind === 'retry' || r.outcome.kind === 'on_hold' ? r.outcome.delaySeconds : null)),
        column((r) => r.log.responseStatus),
        column((r) => r.log.error),
        column((r) => r.claimed.startedAt),
        column((r) => r.log.durationMs),
      ],
    );
  }

  /** Milliseconds until a delivery may be claimed (0 when one is due), or null when none waits. */
  async msUntilNextDue(): Promise<number | null> {
    return this.queue.msUntilNextDue();
  }

  /** Retention: finished deliveries older than `cutoff`, with their attempt log (ON DELETE CASCADE). */
  async deleteFinishedBefore(cutoff: Date): Promise<number> {
    const [, count]: [unknown[], number] = await this.tx
      .outside('retention runs as a job of its own, in autocommit')
      .query(`DELETE FROM webhook_deliveries WHERE status IN ('succeeded', 'failed') AND created_at < $1`, [cutoff]);
    return count ?? 0;
  }

  /** Job: webhooks' sealed secrets in id order after `afterId`, across organizations (re-sealing). */
  async sealedSecretsAfter(afterId: string, limit: number): Promise<{ id: string; sealed: string }[]> {
    const rows: { id: string; secret_ciphertext: string }[] = await this.tx.reads.query(
      `SELECT id, secret_ciphertext FROM webhooks WHERE id > $1 ORDER BY id LIMIT $2`,
      [afterId, limit],
    );
    return rows.map((row) => ({ id: row.id, sealed: row.secret_ciphertext }));
  }

  /** Job: swaps one sealed secret for another, unless someone changed it meanwhile. */
  async replaceSealedSecret(id: string, from: string, to: string): Promise<boolean> {
    const rows: unknown[] = await this.tx
      .outside('re-sealing swaps one row at a time, each on its own (compare and set)')
      .query(
        `WITH changed AS (UPDATE webhooks SET secret_ciphertext = $3 WHERE id = $1 AND secret_ciphertext = $2 RETURNING id) SELECT id FROM changed`,
        [id, from, to],
      );
    return rows.length > 0;
  }
}
