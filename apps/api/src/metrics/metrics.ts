import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import { DataSource } from 'typeorm';
import { ReplicaReads } from '@app/database';
import { droppedSpans } from '../tracing/spans.js';
import { QueueMetricsReadModel, QUEUES } from './queue-metrics.read-model.js';
import { RequestMetrics } from './request-metrics.js';

/** The text format Prometheus scrapes (0.0.4), prom-client's. */
export const METRICS_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;

/** `route` of every request no route matched (contract § 19: unknown routes share one value; never a raw path). */
export const UNMATCHED_ROUTE = 'unmatched';

/** The outcomes of a webhook attempt (WebhookDeliveryWorker), each counted from 0 so rate() has a series at once. */
export const WEBHOOK_OUTCOMES = ['succeeded', 'retry', 'failed', 'gone', 'released'] as const;
export type WebhookOutcome = (typeof WEBHOOK_OUTCOMES)[number];

/**
 * Node's default process metrics (CPU, memory, event loop lag, GC, handles) are the process's, and their collectors
 * (an event-loop delay histogram, a GC observer) are process-wide: one registry per process, made on the first scrape,
 * so a process (a test file) that never serves /metrics starts none of them.
 */
let processRegistry: Registry | undefined;
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
    // Gauges named *_total, which `promtool check metrics` refuses (that suffix is a counter's); each is the sum over
    // `type` of the same family without the suffix (nodejs_active_handles{type} ...), which stays.
    for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'])
      processRegistry.removeSingleMetric(name);
  }
  return processRegistry;
}

/** What pg's Pool counts; TypeORM's driver keeps the pool as `master`. */
interface PoolCounts {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
}

/**
 * The families of contract § 19. Counters are this process's (per instance); the pool gauge reads the pool when
 * scraped; the queue and hold gauges come from QueueMetricsReadModel's one statement, cached a few seconds. When the
 * database does not answer, those gauges are left out of the scrape (its other families still answer), which is what
 * the NoInstanceReady alert (deploy/prometheus/alerts.yml) keys on.
 */
@Injectable()
export class Metrics {
  readonly registry = new Registry();
  private readonly requests = new RequestMetrics();
  private readonly bookingsCreated: Counter<'mode'>;
  private readonly bookingsRefused: Counter<'reason'>;
  private readonly webhookAttempts: Counter<'outcome'>;

  // The pool's counters only: no statement runs through the DataSource here (the queue read goes through TransactionHost).
  constructor(dataSource: DataSource, queues: QueueMetricsReadModel, replicaReads: ReplicaReads) {
    const registers = [this.registry];
    for (const family of this.requests.families()) this.registry.registerMetric(family);
    this.bookingsCreated = new Counter({
      name: 'bookings_created_total',
      help: 'Bookings made through POST /v1/bookings and POST /v1/public/bookings (each occurrence of a series), by key mode.',
      labelNames: ['mode'],
      registers,
    });
    this.bookingsRefused = new Counter({
      name: 'bookings_refused_total',
      help: 'Requests to make a booking answered 4xx, by the error code of the answer.',
      labelNames: ['reason'],
      registers,
    });
    this.webhookAttempts = new Counter({
      name: 'webhook_attempts_total',
      help: 'Webhook delivery attempts made by this process, by outcome.',
      labelNames: ['outcome'],
      registers,
    });
    for (const mode of ['live', 'test']) this.bookingsCreated.inc({ mode }, 0);
    for (const outcome of WEBHOOK_OUTCOMES) this.webhookAttempts.inc({ outcome }, 0);

    new Gauge({
      name: 'db_pool_connections',
      help: "Connections of this process's PostgreSQL pool: idle, busy (checked out), waiting (callers queued for one).",
      labelNames: ['state'],
      registers,
      collect() {
        const pool = (dataSource.driver as unknown as { master?: PoolCounts }).master;
        if (!pool) return;
        this.set({ state: 'idle' }, pool.idleCount);
        this.set({ state: 'busy' }, pool.totalCount - pool.idleCount);
        this.set({ state: 'waiting' }, pool.waitingCount);
      },
    });
    new Gauge({
      name: 'queue_jobs',
      help: 'Jobs of each background queue, by state: due (late or running), scheduled (waiting for their time), failed (kept).',
      labelNames: ['queue', 'state'],
      registers,
      async collect() {
        const snapshot = await queues.snapshot().catch(() => undefined);
        this.reset();
        for (const counts of snapshot?.queues ?? []) {
          this.set({ queue: counts.queue, state: 'due' }, counts.due);
          this.set({ queue: counts.queue, state: 'scheduled' }, counts.scheduled);
          this.set({ queue: counts.queue, state: 'failed' }, counts.failed);
        }
      },
    });
    new Gauge({
      name: 'queue_oldest_due_seconds',
      help: 'How late the oldest due job of each queue is, in seconds (0 when none is due).',
      labelNames: ['queue'],
      registers,
      async collect() {
        const snapshot = await queues.snapshot().catch(() => undefined);
        this.reset();
        if (!snapshot) return;
        for (const queue of QUEUES) this.set({ queue }, snapshot.queues.find((counts) => counts.queue === queue)?.oldestDueSeconds ?? 0);
      },
    });
    new Counter({
      name: 'database_reads_total',
      help: 'Units of reads (availability, the bookings list, the audit log and the batches of its export) ReplicaReads routed, by target: a standby (replica) or the primary; 0 without DATABASE_REPLICA_URLS.',
      labelNames: ['target'],
      registers,
      collect() {
        this.reset();
        for (const target of ['replica', 'primary'] as const) this.inc({ target }, replicaReads.counts[target]);
      },
    });
    new Counter({
      name: 'database_write_positions_lost_total',
      help: 'Write requests whose write position could not be recorded on the primary after three tries (ReplicaReads): standbys may answer that organization without the write until its next one; 0 without DATABASE_REPLICA_URLS.',
      registers,
      collect() {
        this.reset();
        this.inc(replicaReads.writePositionsLost);
      },
    });
    new Counter({
      name: 'otel_spans_dropped_total',
      help: 'Trace spans the OTLP exporter could not deliver (collector unreachable or refusing); 0 with tracing off.',
      registers,
      collect() {
        this.reset();
        this.inc(droppedSpans());
      },
    });
    new Gauge({
      name: 'holds_active',
      help: 'Holds not yet expired, of every organization.',
      registers,
      async collect() {
        const snapshot = await queues.snapshot().catch(() => undefined);
        this.reset();
        if (snapshot) this.set(snapshot.holdsActive);
      },
    });
  }

  /** One answered request. `route` is its template (or UNMATCHED_ROUTE), never its path. */
  countRequest(method: string, route: string, status: number, seconds: number): void {
    this.requests.count(method, route, status, seconds);
  }

  bookingsMade(livemode: boolean, count: number): void {
    this.bookingsCreated.inc({ mode: livemode ? 'live' : 'test' }, count);
  }

  bookingRefused(reason: string): void {
    this.bookingsRefused.inc({ reason });
  }

  webhookAttempt(outcome: WebhookOutcome): void {
    this.webhookAttempts.inc({ outcome });
  }

  /** The whole scrape: the process's default metrics, then the service's. */
  async render(): Promise<string> {
    const [process, service] = await Promise.all([processMetrics().metrics(), this.registry.metrics()]);
    return process + service;
  }
}
