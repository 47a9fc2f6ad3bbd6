import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * A member's outbound calendar feed. The token is never stored: it is derived from the member, the
 * version and ENCRYPTION_KEY (so GET can show it again), and only its hash is kept for lookups.
 * Rotating bumps the version, so the old token stops working at once.
 */
@Entity('booking_feeds')
@Index('booking_feeds_token_hash_key', ['tokenHash'], { unique: true })
export class BookingFeed {
  @PrimaryColumn('text')
  memberId!: string;

  @Column('text')
  organizationId!: string;

  @Column('text')
  userId!: string;

  @Column('integer')
  version!: number;

  @Column('text')
  tokenHash!: string;

  @Column('timestamptz')
  createdAt!: Date;

  @Column('timestamptz')
  updatedAt!: Date;
}
