import { Check, Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { KeyKind, KeyMode, Scope } from '@app/common';

@Entity('api_keys')
@Check('api_keys_publishable_fields', `("kind" = 'publishable') = ("publishable_key" IS NOT NULL AND "allowed_origins" IS NOT NULL)`)
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

  /** `secret` (server to server) or `publishable` (safe in a page: public routes only, from its origins). */
  @Column('text', { default: 'secret' })
  kind!: KeyKind;

  /** A publishable key in full: it is public by design, so GET /api-keys shows it again. */
  @Column('text', { nullable: true })
  publishableKey!: string | null;

  /** A publishable key's origins (`https://host[:port]`, or http on localhost/127.0.0.1). */
  @Column('text', { array: true, nullable: true })
  allowedOrigins!: string[] | null;

  /** The event types a publishable key may book; null: every active one of the organization. */
  @Column('text', { array: true, nullable: true })
  eventTypeIds!: string[] | null;

  /** The routing forms a publishable key may show and submit; null: every form of the organization. */
  @Column('text', { array: true, nullable: true })
  routingFormIds!: string[] | null;
}
