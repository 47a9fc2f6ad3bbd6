import { Column, Entity, Generated, Index, PrimaryColumn } from 'typeorm';

export type CalendarWriteAction = 'put' | 'delete';
export type CalendarWriteStatus = 'pending' | 'done' | 'failed';

/**
 * Outbox of write-backs: a booking to put into (or delete from) a host's destination calendar, recorded
 * in the booking's transaction and carried out by the `calendar-write-back` job after it commits.
 */
@Entity('calendar_writes')
@Index('calendar_writes_due_idx', ['status', 'nextAttemptAt'])
// The queue's next wake-up finds the rows leased now by this (LeaseQueue); only they have a lease end.
@Index('calendar_writes_leased_idx', ['lockedUntil'], { where: '"locked_until" IS NOT NULL' })
@Index('calendar_writes_organization_booking_idx', ['organizationId', 'bookingId'])
// The calendar-write-retention sweep finds finished writes that still have a body by this; a cleared one leaves it.
@Index('calendar_writes_finished_body_idx', ['createdAt'], { where: `"ics" IS NOT NULL AND "status" IN ('done', 'failed')` })
export class CalendarWrite {
  @PrimaryColumn('text')
  id!: string;

  @Column('text')
  organizationId!: string;

  @Column('text')
  bookingId!: string;

  /**
   * The order writes were decided in (a sequence, drawn when the row is inserted, so under the booking's row lock):
   * writes of one booking to one host are carried out in this order, one at a time (CalendarWritesRepository), so the
   * last decided is the last to land. `created_at` is its transaction's start, which a later decision can predate.
   * A bigint: TypeORM reads it as text.
   */
  @Column('bigint')
  @Generated('increment')
  seq!: string;

  /** The host whose destination calendar this goes to. */
  @Column('text')
  userId!: string;

  @Column('text')
  action!: CalendarWriteAction;

  /** The iCalendar object to PUT (null for a delete, an erased booking's, and a finished write's after RETENTION_DAYS). */
  @Column('text', { nullable: true })
  ics!: string | null;

  @Column('text')
  status!: CalendarWriteStatus;

  @Column('integer', { default: 0 })
  attempts!: number;

  @Column('timestamptz')
  nextAttemptAt!: Date;

  @Column('timestamptz', { nullable: true })
  lockedUntil!: Date | null;

  @Column('text', { nullable: true })
  lastError!: string | null;

  @Column('timestamptz')
  createdAt!: Date;
}
