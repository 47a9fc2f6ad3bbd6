import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { SeriesFrequency } from '@app/calendar';

/**
 * A recurring series (api-rules.md § Seats and series): made in one transaction with all its occurrences, which are
 * bookings carrying its id and their 1-based `occurrence`. The rule is kept as it was when booked.
 */
@Entity('booking_series')
@Index('booking_series_organization_idx', ['organizationId', 'livemode', 'createdAt'])
export class BookingSeries {
  @PrimaryColumn('text')
  id!: string;

  @Column('text')
  organizationId!: string;

  @Column('boolean')
  livemode!: boolean;

  @Column('text')
  eventTypeId!: string;

  @Column('text')
  frequency!: SeriesFrequency;

  @Column('smallint')
  interval!: number;

  /** Occurrences booked. */
  @Column('smallint')
  count!: number;

  /** The hash of the series' attendee token, which opens every occurrence (a rescheduled one also has its own). */
  @Column('text')
  tokenHash!: string;

  /** The zone whose wall-clock time every occurrence keeps (the attendee's); null once the attendee is erased. */
  @Column('text', { nullable: true })
  timezone!: string | null;

  @Column('timestamptz')
  createdAt!: Date;
}
