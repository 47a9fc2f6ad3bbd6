import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * One due reminder of one booking (api-rules.md § Reminders): written with the booking in the transaction that
 * confirms it, for each of its event type's reminders whose time is still ahead, and moved by every change (cancel,
 * decline, reschedule, a new reminder list). The sender finds what is due through the partial index on `due_at`, so a
 * round with nothing due reads one index page however many bookings there are; `sent_at` is set in the transaction
 * that writes the mails and the `booking.reminder` event, which is what makes each reminder go exactly once.
 * The booking cascades here (migration BookingReminders1795676048865).
 */
@Entity('booking_reminders')
@Index('booking_reminders_due_idx', ['dueAt'], { where: '"sent_at" IS NULL AND NOT "missed"' })
// queue_jobs{queue="reminder",state="failed"} counts these on every scrape, among every booking's reminders.
@Index('booking_reminders_missed_idx', ['dueAt'], { where: '"missed"' })
@Index('booking_reminders_booking_idx', ['bookingId'])
@Index('booking_reminders_id_key', ['id'], { unique: true })
// The sender's next wake-up finds the rows leased now by this (LeaseQueue); only they have a lease end.
@Index('booking_reminders_leased_idx', ['lockedUntil'], { where: '"locked_until" IS NOT NULL' })
export class BookingReminder {
  @PrimaryColumn('text')
  organizationId!: string;

  @PrimaryColumn('text')
  bookingId!: string;

  @PrimaryColumn('integer')
  minutesBefore!: number;

  /** The booking's start minus `minutesBefore`. */
  @Column('timestamptz')
  dueAt!: Date;

  /** When its mails and event were written; null until then. */
  @Column('timestamptz', { nullable: true })
  sentAt!: Date | null;

  /** No instance ran between `due_at` and the start: it is never sent (api-rules.md § Reminders). */
  @Column('boolean', { default: false })
  missed!: boolean;

  /** The row's name in the sender's queue (LeaseQueue claims and fences by `id`); drawn by the database. */
  @Column('text', { default: () => 'gen_random_uuid()::text' })
  id!: string;

  /** Rounds that claimed it; one that fails it retries on REMINDER_RETRY_SCHEDULE, then parks it (missed, with its error). */
  @Column('integer', { default: 0 })
  attempts!: number;

  /** Why its last round failed; kept on a reminder parked as missed after its retries. */
  @Column('text', { nullable: true })
  lastError!: string | null;

  /** The sender's lease: a claimed row is no one else's until then (a retry keeps it leased for its delay). */
  @Column('timestamptz', { nullable: true })
  lockedUntil!: Date | null;
}
