import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/**
 * How many bookings an organization has, by mode and status, kept rather than counted (GET /bookings' `totalCount`
 * without filters, or with `status` only): the count is the sum of a group's rows. Triggers on `bookings` (migration
 * KeptBookingCounts) add a row for each statement that inserts or deletes bookings or changes one's status, in that
 * statement's transaction, so the count is always exact and no two bookings wait for one counter row;
 * BookingRows.foldCounts, a periodic job, folds each group's rows into one.
 */
@Entity('booking_count_deltas')
@Index('booking_count_deltas_group_idx', ['organizationId', 'livemode', 'status'])
export class BookingCountDelta {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' })
  id!: string;

  @Column('text')
  organizationId!: string;

  @Column('boolean')
  livemode!: boolean;

  @Column('text')
  status!: string;

  @Column('bigint')
  delta!: string;
}
