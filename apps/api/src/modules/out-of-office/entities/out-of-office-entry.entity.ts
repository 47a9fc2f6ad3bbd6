import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A member's absence (contract § 17): busy from `startsAt` to `endsAt`, optionally sending its bookings to
 * another member. One user's entries never overlap (the exclusion constraint of migration OutOfOffice).
 */
@Entity('out_of_office_entries')
export class OutOfOfficeEntry {
  @PrimaryColumn('text')
  id!: string;

  @Column('text')
  organizationId!: string;

  @Column('text')
  memberId!: string;

  @Column('text')
  userId!: string;

  @Column('timestamptz')
  startsAt!: Date;

  @Column('timestamptz')
  endsAt!: Date;

  @Column('text', { nullable: true })
  note!: string | null;

  @Column('text', { nullable: true })
  redirectToUserId!: string | null;

  /** The caller's own id for the entry (PUT /out-of-office/by-external-id/:externalId), unique per organization. */
  @Column('text', { nullable: true })
  externalId!: string | null;

  @Column('timestamptz')
  createdAt!: Date;

  @Column('timestamptz')
  updatedAt!: Date;
}
