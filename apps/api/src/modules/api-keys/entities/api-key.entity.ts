import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { KeyMode, Scope } from '@app/common';

@Entity('api_keys')
@Index('api_keys_organization_created_idx', ['organizationId', 'createdAt'])
export class ApiKey {
  @PrimaryColumn('text')
  id!: string;

  @Column('text')
  organizationId!: string;

  /** The acting user for requests made with the key. */
  @Column('text')
  createdByUserId!: string;

  @Column('text')
  name!: string;

  @Column('text')
  keyPrefix!: string;

  /** sha256 of the full key: authentication is one lookup on this unique index. */
  @Index('api_keys_key_hash_key', { unique: true })
  @Column('text')
  keyHash!: string;

  @Column('text', { array: true })
  scopes!: Scope[];

  @Column('integer')
  rateLimitPerMinute!: number;

  @Column('text')
  mode!: KeyMode;

  @Column('timestamptz', { nullable: true })
  expiresAt!: Date | null;

  @Column('timestamptz', { nullable: true })
  lastUsedAt!: Date | null;

  @Column('timestamptz', { nullable: true })
  revokedAt!: Date | null;

  @Column('timestamptz')
  createdAt!: Date;
}
