import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { Scope } from '@app/common';

/**
 * An authorization request (GET /oauth/authorize, 10 minutes) and, once approved, its code (60 seconds, once). It
 * belongs to the app's organization until decided, then names the connecting organization and its grant. Every token
 * issued from the code carries this row's id: the chain a replay revokes.
 */
@Entity('oauth_authorizations')
@Index('oauth_authorizations_app_idx', ['appId'])
@Index('oauth_authorizations_expires_idx', ['expiresAt'])
export class OAuthAuthorization {
  @PrimaryColumn('text')
  id!: string;

  /** The app's organization. */
  @Column('text')
  organizationId!: string;

  @Column('text')
  appId!: string;

  @Column('text')
  redirectUri!: string;

  @Column('text', { array: true })
  scopes!: Scope[];

  @Column('text', { nullable: true })
  state!: string | null;

  /** BASE64URL(SHA256(code_verifier)): S256 is the only method. */
  @Column('text')
  codeChallenge!: string;

  @Column('timestamptz')
  createdAt!: Date;

  @Column('timestamptz')
  expiresAt!: Date;

  @Column('timestamptz', { nullable: true })
  decidedAt!: Date | null;

  @Column('boolean', { nullable: true })
  approved!: boolean | null;

  @Column('text', { nullable: true })
  connectingOrganizationId!: string | null;

  @Column('text', { nullable: true })
  grantId!: string | null;

  @Index('oauth_authorizations_code_hash_key', { unique: true })
  @Column('text', { nullable: true })
  codeHash!: string | null;

  @Column('timestamptz', { nullable: true })
  codeExpiresAt!: Date | null;

  /** Set by the one exchange that wins (a conditional UPDATE): the database keeps the code single-use. */
  @Column('timestamptz', { nullable: true })
  codeUsedAt!: Date | null;
}
