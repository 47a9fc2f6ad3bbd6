import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * A slot kept for an attendee for a few minutes (api-rules.md § Browser booking). Its occupancy lives in booking_hosts
 * (status `held`, `booking_id` = this id), under the constraint that refuses overlapping bookings; this row
 * keeps what the occupancy does not: who may use it and how it was asked for.
 */
@Entity('holds')
@Index('holds_organization_event_type_expires_idx', ['organizationId', 'livemode', 'eventTypeId', 'expiresAt'])
// The sweep that deletes ended holds with their client address (HoldsRepository.deleteEnded).
@Index('holds_expires_idx', ['expiresAt'])
@Index('holds_api_key_client_expires_idx', ['apiKeyId', 'clientIp', 'expiresAt'])
export class Hold {
  @PrimaryColumn('text')
  id!: string;

  @Column('text')
  organizationId!: string;

  @Column('text')
  eventTypeId!: string;

  @Column('boolean')
  livemode!: boolean;

  @Column('timestamptz')
  startsAt!: Date;

  @Column('timestamptz')
  endsAt!: Date;

  @Column('timestamptz')
  expiresAt!: Date;

  /** The host the booking would get (round robin), or the first of a collective's hosts. */
  @Column('text')
  hostUserId!: string;

  @Column('integer')
  bufferBeforeMinutes!: number;

  @Column('integer')
  bufferAfterMinutes!: number;

  /** sha256 of the holdToken a publishable key's hold was given; null for a secret key's hold. */
  @Column('text', { nullable: true })
  tokenHash!: string | null;

  /** The publishable key and client address that placed it, for the per-visitor limit; null otherwise. */
  @Column('text', { nullable: true })
  apiKeyId!: string | null;

  @Column('text', { nullable: true })
  clientIp!: string | null;

  @Column('timestamptz')
  createdAt!: Date;
}
