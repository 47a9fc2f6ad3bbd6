import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn, type Relation } from 'typeorm';
import { Webhook } from './webhook.entity.js';

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

/** One event for one endpoint, and the state of getting it there. */
@Entity('webhook_deliveries')
@Check('webhook_deliveries_status_check', `"status" IN ('pending', 'succeeded', 'failed')`)
@Index('webhook_deliveries_due_idx', ['nextAttemptAt'], { where: `"status" = 'pending'` })
// The queue's next wake-up finds the rows leased now by this (LeaseQueue); only they have a lease end.
@Index('webhook_deliveries_leased_idx', ['lockedUntil'], { where: '"locked_until" IS NOT NULL' })
// queue_jobs{state="failed"} counts these on every scrape: an index of the few failed rows, not a scan of the history.
@Index('webhook_deliveries_failed_idx', ['nextAttemptAt'], { where: `"status" = 'failed'` })
@Index('webhook_deliveries_webhook_created_idx', ['webhookId', 'createdAt'])
// Dispatching an event twice (a retried transaction, two dispatchers) cannot double a delivery.
@Index('webhook_deliveries_webhook_event_key', ['webhookId', 'eventId'], { unique: true })
export class WebhookDelivery {
  @PrimaryColumn('text')
  id!: string;

  @Column('text')
  webhookId!: string;

  @ManyToOne(() => Webhook, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'webhook_id' })
  webhook?: Relation<Webhook>;

  @Column('text')
  organizationId!: string;

  /** `whevt_…`: the payload id and the `webhook-id` header, the same on every attempt. */
  @Column('text')
  eventId!: string;

  @Column('text')
  eventType!: string;

  /** The exact JSON sent, so every attempt carries the same bytes. */
  @Column('text')
  body!: string;

  @Column('text', { default: 'pending' })
  status!: DeliveryStatus;

  @Column('integer', { default: 0 })
  attempts!: number;

  /** The schedule's length + 1; a manual retry adds one. */
  @Column('integer')
  maxAttempts!: number;

  /** null once the delivery succeeded or failed for good. */
  @Column('timestamptz', { nullable: true, default: () => 'now()' })
  nextAttemptAt!: Date | null;

  /** A lease, not a lock: while it lasts no other worker may attempt this delivery; a crashed worker's lease simply ends. */
  @Column('timestamptz', { nullable: true })
  lockedUntil!: Date | null;

  @Column('timestamptz', { nullable: true })
  lastAttemptAt!: Date | null;

  @Column('integer', { nullable: true })
  responseStatus!: number | null;

  @Column('text', { nullable: true })
  lastError!: string | null;

  /** Its event's trace context (W3C `traceparent`, tracing on): each attempt's span joins the trace of the request that caused it. */
  @Column('text', { nullable: true })
  traceParent!: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt!: Date;
}
