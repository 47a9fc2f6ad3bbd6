import { Check, Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { Scope } from '@app/common';

export type OAuthTokenKind = 'access' | 'refresh';

/** An access (`oat_`) or refresh (`ort_`) token, stored as its sha256; it belongs to the connecting organization's grant. */
@Entity('oauth_tokens')
@Check('oauth_tokens_kind', `"kind" IN ('access', 'refresh')`)
@Index('oauth_tokens_authorization_idx', ['authorizationId'])
@Index('oauth_tokens_grant_idx', ['grantId'])
@Index('oauth_tokens_expires_idx', ['expiresAt'])
export class OAuthToken {
  @PrimaryColumn('text')
  id!: string;

  @Column('text')
  organizationId!: string;

  @Column('text')
  grantId!: string;

  @Column('text')
  appId!: string;

  /** The code the chain started from: a replayed code or refresh token revokes every token with this id. */
  @Column('text')
  authorizationId!: string;

  @Column('text')
  kind!: OAuthTokenKind;

  @Index('oauth_tokens_token_hash_key', { unique: true })
  @Column('text')
  tokenHash!: string;

  @Column('text', { array: true })
  scopes!: Scope[];

  @Column('timestamptz')
  createdAt!: Date;

  @Column('timestamptz')
  expiresAt!: Date;

  /** A refresh token's one use (rotation), set by a conditional UPDATE. */
  @Column('timestamptz', { nullable: true })
  usedAt!: Date | null;

  @Column('timestamptz', { nullable: true })
  revokedAt!: Date | null;
}
