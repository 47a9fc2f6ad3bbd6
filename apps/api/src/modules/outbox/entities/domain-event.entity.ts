import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * Something that happened, recorded in the same transaction as the change that caused it (the
 * outbox). The webhooks worker fans each event out to the subscribed endpoints.
 */
@Entity('domain_events')
// The dispatcher's claims and next wake-up (LeaseQueue) read the waiting events by this, in claim order.
@Index('domain_events_waiting_idx', ['dueAt', 'createdAt', 'id'], { where: 'dispatched_at IS NULL AND failed_at IS NULL' })
// The next wake-up finds the events leased now by this; only they have a lease end.
@Index('domain_events_leased_idx', ['lockedUntil'], { where: '"locked_until" IS NOT NULL' })
// The parked events, counted on every metrics scrape (queue_jobs{queue="outbox",state="failed"}): only those few rows.
@Index('domain_events_failed_idx', ['failedAt'], { where: '"failed_at" IS NOT NULL' })
// Erasure finds the events about a booking, its predecessor or a routing response (expression indexes: migration VolumeIndexes).
@Index('domain_events_booking_idx', { synchronize: false })
@Index('domain_events_previous_booking_idx', { synchronize: false })
@Index('domain_events_routing_response_idx', { synchronize: false })
export class DomainEvent {
  /** `whevt_…`: also the payload id receivers see. */
  @PrimaryColumn('text')
  id!: string;

  @Column('text')
  organizationId!: string;

  @Column('boolean')
  livemode!: boolean;

  @Column('text')
  type!: string;

  @Column('jsonb')
  data!: Record<string, unknown>;

  /** The partition key (monthly, docs/operating/partitions.md), hence part of the primary key. */
  @PrimaryColumn('timestamptz')
  createdAt!: Date;

  @Column('timestamptz', { nullable: true })
  dispatchedAt!: Date | null;

  /**
   * The W3C `traceparent` of the request (or job) that recorded it, when tracing is on: its webhook attempts join that
   * trace. Null without tracing, or when the span was not sampled.
   */
  @Column('text', { nullable: true })
  traceParent!: string | null;

  /** When the dispatcher may take it: the database's now() when written; a failed fan-out's retry moves it. */
  @Column('timestamptz', { default: () => 'now()' })
  dueAt!: Date;

  /** Fan-outs that claimed it, this one included (LeaseQueue). */
  @Column('integer', { default: 0 })
  attempts!: number;

  /** Why its last fan-out failed (PostgreSQL's message, never the row's values). */
  @Column('text', { nullable: true })
  lastError!: string | null;

  /** Its retries spent: parked, never fanned out (kept until RETENTION_DAYS). */
  @Column('timestamptz', { nullable: true })
  failedAt!: Date | null;

  /** A dispatcher's lease on it (LeaseQueue). */
  @Column('timestamptz', { nullable: true })
  lockedUntil!: Date | null;
}
