import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * The stored response of one Idempotency-Key of an organization in one mode (api-rules.md § Bookings). A
 * request running under a key holds a transaction-scoped advisory lock instead of a row, so a request
 * that dies leaves nothing behind (IdempotencyRepository.lock).
 */
@Entity('idempotency_keys')
@Index('idempotency_keys_expires_idx', ['expiresAt'])
export class IdempotencyKey {
  @PrimaryColumn('text')
  organizationId!: string;

  @PrimaryColumn('boolean')
  livemode!: boolean;

  @PrimaryColumn('text')
  key!: string;

  /** sha256 of the operation and its canonical body: the same key with another body is refused. */
  @Column('text')
  fingerprint!: string;

  @Column('integer')
  responseStatus!: number;

  @Column('jsonb')
  responseBody!: unknown;

  @Column('timestamptz')
  createdAt!: Date;

  @Column('timestamptz')
  expiresAt!: Date;
}
