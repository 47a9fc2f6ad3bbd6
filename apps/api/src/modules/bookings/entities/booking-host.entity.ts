import { Column, Entity, Exclusion, Index, JoinColumn, ManyToOne, PrimaryColumn, type Relation } from 'typeorm';
import { BUSY_STATUSES_SQL, type BookingStatus } from '../booking-status.js';
import { Booking } from './booking.entity.js';

/**
 * One row per host a booking occupies (a collective booking occupies every host). The exclusion
 * constraint is what makes double booking impossible, whatever the number of instances: two
 * confirmed or pending meetings of one host in one mode cannot overlap. `during` is the meeting
 * itself, without buffers, because buffers may overlap each other (contract section 7, rule 2).
 */
@Entity('booking_hosts')
@Exclusion(
  'booking_hosts_no_overlap',
  `USING gist ("host_user_id" WITH =, "livemode" WITH =, "during" WITH &&) WHERE ("status" IN ${BUSY_STATUSES_SQL})`,
)
@Index('booking_hosts_event_type_host_idx', ['eventTypeId', 'hostUserId', 'createdAt'])
export class BookingHost {
  @PrimaryColumn('text')
  bookingId!: string;

  @ManyToOne(() => Booking, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'booking_id' })
  booking?: Relation<Booking>;

  @PrimaryColumn('text')
  hostUserId!: string;

  @Column('text')
  organizationId!: string;

  @Column('text')
  eventTypeId!: string;

  @Column('boolean')
  livemode!: boolean;

  /** Kept equal to the booking's status in the same transaction, so the exclusion constraint sees cancellations. */
  @Column('text')
  status!: BookingStatus;

  /** `[startsAt, endsAt)` as PostgreSQL range text, e.g. `["2027-03-01 09:00:00+00","2027-03-01 09:30:00+00")`. */
  @Column('tstzrange')
  during!: string;

  @Column('timestamptz')
  createdAt!: Date;

  /** 1 for the primary host, then the others in the event type's host order as it was when booked. */
  @Column('smallint', { default: 1 })
  position!: number;
}
