import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * Something that happened, recorded in the same transaction as the change that caused it (the
 * outbox). The webhooks worker fans each event out to the subscribed endpoints.
 */
@Entity('domain_events')
@Index('domain_events_undispatched_idx', ['createdAt'], { where: 'dispatched_at IS NULL' })
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

  @Column('timestamptz')
  createdAt!: Date;

  @Column('timestamptz', { nullable: true })
  dispatchedAt!: Date | null;

  /**
   * The W3C `traceparent` of the request (or job) that recorded it, when tracing is on: its webhook attempts join that
   * trace. Null without tracing, or when the span was not sampled.
   */
  @Column('text', { nullable: true })
  traceParent!: string | null;
}
