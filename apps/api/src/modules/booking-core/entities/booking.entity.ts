import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

import type { BookingAnswer } from '../booking-answers.js';
import type { BookingStatus } from '../../booking-occupancy/index.js';

export type { BookingStatus } from '../../booking-occupancy/index.js';
export type CancelledBy = 'host' | 'attendee';

@Entity('bookings')
@Index('bookings_organization_livemode_starts_idx', ['organizationId', 'livemode', 'startsAt', 'id'])
@Index('bookings_event_type_status_idx', ['eventTypeId', 'status'])
@Index('bookings_series_idx', ['seriesId', 'occurrence'], { where: '"series_id" IS NOT NULL' })
@Index('bookings_no_show_attendee_idx', ['organizationId', 'livemode', 'startsAt'], { where: '"no_show_attendee"' })
// Erasure finds an attendee's bookings by email, whatever its case (expression index: migration AttendeeErasure).
@Index('bookings_organization_attendee_email_idx', { synchronize: false })
// Erasure finds the bookings whose email-type answer is the address (GIN over booking_answer_emails: migration VolumeIndexes).
@Index('bookings_answer_emails_idx', { synchronize: false })
@Index('bookings_no_show_host_idx', ['organizationId', 'livemode', 'startsAt'], { where: '"no_show_host"' })
export class Booking {
  @PrimaryColumn('text')
  id!: string;

  @Column('text')
  organizationId!: string;

  @Column('text')
  eventTypeId!: string;

  /** False for bookings made with test-mode keys; the two modes never see or block each other. */
  @Column('boolean')
  livemode!: boolean;

  @Column('text')
  status!: BookingStatus;

  @Column('timestamptz')
  startsAt!: Date;

  @Column('timestamptz')
  endsAt!: Date;

  /** The primary host; every host (collective) has a row in booking_hosts. */
  @Column('text')
  hostUserId!: string;

  @Column('text')
  attendeeEmail!: string;

  @Column('text', { nullable: true })
  attendeeFirstName!: string | null;

  @Column('text', { nullable: true })
  attendeeLastName!: string | null;

  @Column('text', { nullable: true })
  attendeePhone!: string | null;

  /** The attendee's locale as given (canonical BCP 47, contract § 23); null: the organization's default. */
  @Column('text', { nullable: true })
  attendeeLocale!: string | null;

  /** The attendee's zone; null once the attendee is erased (api-rules.md § Personal data). */
  @Column('text', { nullable: true })
  timezone!: string | null;

  @Column('text', { nullable: true })
  locationType!: string | null;

  @Column('text', { nullable: true })
  location!: string | null;

  @Column('text', { nullable: true })
  notes!: string | null;

  @Column('jsonb', { default: () => `'{}'` })
  metadata!: Record<string, string>;

  /** Answers to the event type's questions as asked at booking time (label snapshot); kept on reschedule. */
  @Column('jsonb', { default: () => "'[]'" })
  answers!: BookingAnswer[];

  /** The event type's buffers when booked: a busy interval keeps its own buffers if the event type changes later. */
  @Column('integer', { default: 0 })
  bufferBeforeMinutes!: number;

  @Column('integer', { default: 0 })
  bufferAfterMinutes!: number;

  @Column('text')
  confirmationTokenHash!: string;

  @Column('timestamptz', { nullable: true })
  cancelledAt!: Date | null;

  @Column('text', { nullable: true })
  cancellationReason!: string | null;

  @Column('text', { nullable: true })
  cancelledBy!: CancelledBy | null;

  @Column('text', { nullable: true })
  previousBookingId!: string | null;

  @Column('text', { nullable: true })
  rescheduledToBookingId!: string | null;

  /** The recurring series (`ser_…`) this occurrence belongs to, or null (api-rules.md § Seats and series). */
  @Column('text', { nullable: true })
  seriesId!: string | null;

  /** 1-based place in its series; a reschedule keeps it. */
  @Column('smallint', { nullable: true })
  occurrence!: number | null;

  /** Marked once the meeting has started (api-rules.md § Reminders): the attendee did not come. */
  @Column('boolean', { default: false })
  noShowAttendee!: boolean;

  /** The host did not come. */
  @Column('boolean', { default: false })
  noShowHost!: boolean;

  @Column('timestamptz')
  createdAt!: Date;

  @Column('timestamptz')
  updatedAt!: Date;
}
