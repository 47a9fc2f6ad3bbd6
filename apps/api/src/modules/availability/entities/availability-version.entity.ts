import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A version per thing availability answers depend on: `u:<user id>` (schedule, overrides, bookings as
 * host, calendar busy times) and `e:<event type id>` (the event type and its hosts). Written only by
 * database triggers on those tables, in the writing transaction (migration AvailabilityVersions): every
 * change takes a new value of one global sequence, so the sum over a set of subjects grows with any
 * committed change to any of them. The availability cache validates its entries with that sum.
 */
@Entity('availability_versions')
export class AvailabilityVersion {
  @PrimaryColumn('text')
  organizationId!: string;

  @PrimaryColumn('text')
  subject!: string;

  @Column('bigint')
  version!: string;
}
