import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

export type IdempotencyState = 'running' | 'done';

/**
 * One Idempotency-Key of an organization in one mode (contract section 8). `running` holds a lease
 * (`lockedUntil`) so a crashed request does not block its key forever; `done` keeps the response.
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

  @Column('text')
  state!: IdempotencyState;

  @Column('integer', { nullable: true })
  responseStatus!: number | null;

  @Column('jsonb', { nullable: true })
  responseBody!: unknown;

  @Column('timestamptz')
  lockedUntil!: Date;

  @Column('timestamptz')
  createdAt!: Date;

  @Column('timestamptz')
  expiresAt!: Date;
}
