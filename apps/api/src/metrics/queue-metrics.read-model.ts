import { Injectable } from '@nestjs/common';
import { Clock } from '@app/common';
import { TransactionHost } from '@app/database';

/** The queues of `queue_jobs` and `queue_oldest_due_seconds` (contract § 19). */
export const QUEUES = ['mail', 'webhook', 'calendar_sync', 'calendar_write', 'reminder', 'outbox'] as const;
export type QueueName = (typeof QUEUES)[number];

export interface QueueCounts {
  queue: QueueName;
  /** Waiting and due (leased ones included: a job is late until it is done). */
  due: number;
  /** Waiting for a later time: a retry's delay, the next sync, a reminder ahead. */
  scheduled: number;
  /** Out of the queue for good and still kept (mail and webhooks until RETENTION_DAYS): given up, a calendar in error, a missed reminder. */
  failed: number;
  /** How late the oldest due job is, seconds; 0 when none is due. */
  oldestDueSeconds: number;
}

export interface QueueSnapshot {
  queues: QueueCounts[];
  /** Holds not yet expired, of every organization. */
  holdsActive: number;
}

/** A scrape every 15 s per Prometheus, and several Prometheus servers, share one read per this long. */
export const QUEUE_SNAPSHOT_TTL_MS = 5_000;

/*
 * One statement for every queue, each part on the index its own worker claims with (the partial "pending" indexes,
 * calendar_writes (status, next_attempt_at), booking_reminders' unsent due_at) and the partial indexes of failed rows
 * (migration QueueFailedIndexes), so its cost follows the rows waiting, not the tables' history. The mail, webhook and
 * calendar queues are due by the database's now() (their LeaseQueue's), reminders and holds by the injectable Clock
 * ($1), as their sender and the slot reads judge them.
 */
const SNAPSHOT_SQL = `
  WITH holds_now AS (SELECT count(*)::int AS active FROM holds WHERE expires_at > $1::timestamptz)
  SELECT q.queue, q.due::int, q.scheduled::int, q.failed::int, coalesce(q.oldest_due_seconds, 0)::float8 AS oldest_due_seconds,
         h.active AS holds_active
    FROM (
      SELECT 'mail' AS queue,
             count(*) FILTER (WHERE c.next_attempt_at <= now()) AS due,
             count(*) FILTER (WHERE c.next_attempt_at > now()) AS scheduled,
             (SELECT count(*) FROM mail_outbox f WHERE f.status = 'failed') AS failed,
             extract(epoch FROM now() - min(c.next_attempt_at)) AS oldest_due_seconds
        FROM mail_outbox c WHERE c.status = 'pending'
      UNION ALL
      SELECT 'webhook',
             count(*) FILTER (WHERE c.next_attempt_at <= now()),
             count(*) FILTER (WHERE c.next_attempt_at > now()),
             (SELECT count(*) FROM webhook_deliveries f WHERE f.status = 'failed'),
             extract(epoch FROM now() - min(c.next_attempt_at))
        FROM webhook_deliveries c JOIN webhooks w ON w.id = c.webhook_id
       WHERE c.status = 'pending' AND w.active
      UNION ALL
      SELECT 'calendar_sync',
             count(*) FILTER (WHERE c.next_sync_at <= now()),
             count(*) FILTER (WHERE c.next_sync_at > now()),
             count(*) FILTER (WHERE c.status = 'error'),
             extract(epoch FROM now() - min(c.next_sync_at))
        FROM calendar_connections c
      UNION ALL
      SELECT 'calendar_write',
             count(*) FILTER (WHERE c.next_attempt_at <= now()),
             count(*) FILTER (WHERE c.next_attempt_at > now()),
             (SELECT count(*) FROM calendar_writes f WHERE f.status = 'failed'),
             extract(epoch FROM now() - min(c.next_attempt_at))
        FROM calendar_writes c WHERE c.status = 'pending'
      UNION ALL
      SELECT 'reminder',
             count(*) FILTER (WHERE c.due_at <= $1::timestamptz),
             count(*) FILTER (WHERE c.due_at > $1::timestamptz),
             (SELECT count(*) FROM booking_reminders f WHERE f.missed),
             extract(epoch FROM $1::timestamptz - min(c.due_at))
        FROM booking_reminders c WHERE c.sent_at IS NULL AND NOT c.missed
      UNION ALL
      SELECT 'outbox',
             count(*) FILTER (WHERE c.due_at <= now()),
             count(*) FILTER (WHERE c.due_at > now()),
             (SELECT count(*) FROM domain_events f WHERE f.failed_at IS NOT NULL),
             extract(epoch FROM now() - min(c.due_at))
        FROM domain_events c WHERE c.dispatched_at IS NULL AND c.failed_at IS NULL
    ) q CROSS JOIN holds_now h`;

interface SnapshotRow {
  queue: QueueName;
  due: number;
  scheduled: number;
  failed: number;
  oldest_due_seconds: number;
  holds_active: number;
}

/**
 * The queue gauges' read model: it reads the tables of the mail, webhooks, calendars and bookings modules (read only),
 * because one statement every few seconds beats a call into each module per scrape (docs/contributing/architecture.md § Read
 * models). Across organizations by nature: the gauges are the service's, not a tenant's.
 */
@Injectable()
export class QueueMetricsReadModel {
  private cached: { readAt: number; snapshot: Promise<QueueSnapshot> } | undefined;

  constructor(
    private readonly tx: TransactionHost,
    private readonly clock: Clock,
  ) {}

  /** The queues as of at most QUEUE_SNAPSHOT_TTL_MS ago; concurrent scrapes share one read, and a failed read is not kept. */
  snapshot(): Promise<QueueSnapshot> {
    const now = performance.now();
    if (this.cached && now - this.cached.readAt < QUEUE_SNAPSHOT_TTL_MS) return this.cached.snapshot;
    const snapshot = this.read();
    const cached = { readAt: now, snapshot };
    this.cached = cached;
    snapshot.catch(() => {
      if (this.cached === cached) this.cached = undefined;
    });
    return snapshot;
  }

  private async read(): Promise<QueueSnapshot> {
    // Oldest due is positive only when something is due: min() over rows all ahead gives a negative lag.
    const rows = await this.tx.prepared<SnapshotRow>('metrics_queue_snapshot', SNAPSHOT_SQL, [this.clock.now()]);
    return {
      queues: rows.map((row) => ({
        queue: row.queue,
        due: row.due,
        scheduled: row.scheduled,
        failed: row.failed,
        oldestDueSeconds: row.due > 0 ? Math.max(0, row.oldest_due_seconds) : 0,
      })),
      holdsActive: rows[0]?.holds_active ?? 0,
    };
  }
}
