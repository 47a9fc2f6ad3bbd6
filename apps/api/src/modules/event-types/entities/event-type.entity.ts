import type { ChangePolicy } from '../change-policy.js';
import { Check, Column, Entity, Index, OneToMany, PrimaryColumn, type Relation } from 'typeorm';
import type { SchedulingType } from '@app/availability';
import type { SeriesFrequency } from '@app/calendar';
import type { BookingQuestion } from '../questions.js';
import type { Reminder } from '../reminders.js';
import { EventTypeHost } from './event-type-host.entity.js';

export const LOCATION_TYPES = ['zoom', 'meet', 'phone', 'in_person'] as const;
export type LocationType = (typeof LOCATION_TYPES)[number];

/** How a booking of the event type may repeat (api-rules.md § Seats and series). */
export interface Recurrence {
  frequency: SeriesFrequency;
  /** Every `interval` days, weeks or months, 1..12. */
  interval: number;
  /** The most occurrences a booking may ask for, 2..52. */
  maxCount: number;
}

/** A bookable meeting template. Deleting one only clears `isActive`, so its bookings keep their event type. */
@Entity('event_types')
// Slugs are unique among active event types only: a deleted one frees its slug.
@Index('event_types_organization_slug_active_key', ['organizationId', 'slug'], { unique: true, where: 'is_active' })
@Index('event_types_organization_active_created_idx', ['organizationId', 'isActive', 'createdAt'])
@Check('event_types_seats_range', `"seats_per_slot" IS NULL OR "seats_per_slot" BETWEEN 2 AND 1000`)
@Check('event_types_seats_or_recurrence', `"seats_per_slot" IS NULL OR "recurrence" IS NULL`)
export class EventType {
  @PrimaryColumn('text')
  id!: string;

  @Column('text')
  organizationId!: string;

  @Column('text')
  title!: string;

  @Column('text')
  slug!: string;

  @Column('text', { nullable: true })
  description!: string | null;

  @Column('integer')
  durationMinutes!: number;

  @Column('text', { nullable: true })
  locationType!: LocationType | null;

  @Column('text', { nullable: true })
  location!: string | null;

  @Column('integer', { default: 0 })
  bufferBeforeMinutes!: number;

  @Column('integer', { default: 0 })
  bufferAfterMinutes!: number;

  /** Fractional hours are allowed (0.5 = 30 minutes). */
  @Column('double precision', { default: 0 })
  minimumNoticeHours!: number;

  @Column('integer', { default: 60 })
  bookingWindowDays!: number;

  @Column('integer', { nullable: true })
  maxBookingsPerDay!: number | null;

  @Column('integer', { nullable: true })
  slotIntervalMinutes!: number | null;

  @Column('text')
  schedulingType!: SchedulingType;

  @Column('boolean', { default: false })
  requiresConfirmation!: boolean;

  /** How long a hold of this event type keeps its slot (api-rules.md § Browser booking). */
  @Column('integer', { default: 10 })
  holdMinutes!: number;

  /** The booking form's questions, in order, defaults written out (api-rules.md § Browser booking). */
  @Column('jsonb', { default: () => "'[]'" })
  questions!: BookingQuestion[];

  /** Attendees per start, 2..1000; null: one booking per slot (api-rules.md § Seats and series). Never with `recurrence`. */
  @Column('integer', { nullable: true })
  seatsPerSlot!: number | null;

  /** How bookings may repeat; null: they do not (api-rules.md § Seats and series). */
  @Column('jsonb', { nullable: true })
  recurrence!: Recurrence | null;

  /** Reminders before each confirmed booking's start, earliest first (api-rules.md § Reminders). */
  @Column('jsonb', { default: () => "'[]'" })
  reminders!: Reminder[];

  /** Whether and until how long before the start the attendee may cancel with its token (contract § 17). */
  @Column('jsonb', { default: () => `'{"allowed":true,"noticeMinutes":0}'` })
  attendeeCancellation!: ChangePolicy;

  /** The same for rescheduling. */
  @Column('jsonb', { default: () => `'{"allowed":true,"noticeMinutes":0}'` })
  attendeeRescheduling!: ChangePolicy;

  @Column('boolean', { default: true })
  isActive!: boolean;

  @OneToMany(() => EventTypeHost, (host) => host.eventType)
  hosts?: Relation<EventTypeHost>[];

  @Column('timestamptz')
  createdAt!: Date;

  @Column('timestamptz')
  updatedAt!: Date;
}
