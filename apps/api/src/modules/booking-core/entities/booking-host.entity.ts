import { Check, Column, Entity, Exclusion, Index, PrimaryColumn } from 'typeorm';
import { OCCUPYING_STATUSES_SQL, type OccupancyStatus } from '../../booking-occupancy/index.js';

/**
 * One row per host a booking or a hold occupies (a collective booking occupies every host). The exclusion
 * constraint is what makes double booking impossible, whatever the number of instances: two confirmed or
 * pending meetings or holds of one host in one mode cannot overlap. `during` is the meeting itself, without
 * buffers, because buffers may overlap each other (api-rules.md § Slots, rule 2). A hold's rows carry its
 * `expires_at`; the constraint cannot read the clock, so expired ones are deleted under the hosts' locks by
 * the next booking or hold of those hosts (HoldsRepository.clearExpired), and readers ignore them meanwhile.
 * The organization and the event type cascade here (migration Holds1795500000000).
 *
 * Seats (api-rules.md § Seats and series): the bookings and holds of one start of a seated event type carry one
 * `seat_group`, and rows of one group do not exclude each other (`<>`); every other overlap still does, so a
 * seated start occupies its host once, against everything else. How many share a group is counted under the
 * host's lock (SlotDecisionService.lock, slot-decision), which every writer of these rows holds. `during` comes before the
 * group so that the index keeps a host's rows in time order (see migration SeatsAndSeries1795585466508).
 */
@Entity('booking_hosts')
@Exclusion(
  'booking_hosts_no_overlap',
  `USING gist ("host_user_id" WITH =, "livemode" WITH =, "during" WITH &&, (coalesce("seat_group", "booking_id")) WITH <>) WHERE ("status" IN ${OCCUPYING_STATUSES_SQL})`,
)
@Check('booking_hosts_hold_expires', `("status" = 'held') = ("expires_at" IS NOT NULL)`)
@Index('booking_hosts_event_type_host_idx', ['eventTypeId', 'hostUserId', 'createdAt'])
@Index('booking_hosts_held_expires_idx', ['hostUserId', 'expiresAt'], { where: `"status" = 'held'` })
export class BookingHost {
  /** The booking's id, or the hold's (`hld_…`) on a hold's rows. */
  @PrimaryColumn('text')
  bookingId!: string;

  @PrimaryColumn('text')
  hostUserId!: string;

  @Column('text')
  organizationId!: string;

  @Column('text')
  eventTypeId!: string;

  @Column('boolean')
  livemode!: boolean;

  /** Kept equal to the booking's status in the same transaction, so the exclusion constraint sees cancellations; `held` for a hold. */
  @Column('text')
  status!: OccupancyStatus;

  /** `[startsAt, endsAt)` as PostgreSQL range text, e.g. `["2027-03-01 09:00:00+00","2027-03-01 09:30:00+00")`. */
  @Column('tstzrange')
  during!: string;

  @Column('timestamptz')
  createdAt!: Date;

  /** A hold's end; null on a booking's rows. */
  @Column('timestamptz', { nullable: true })
  expiresAt!: Date | null;

  /** `seat:<event type>:<start>` on the rows of a seated event type's start; null: the row is its own group. */
  @Column('text', { nullable: true })
  seatGroup!: string | null;

  /** 1 for the primary host, then the others in the event type's host order as it was when booked. */
  @Column('smallint', { default: 1 })
  position!: number;
}
