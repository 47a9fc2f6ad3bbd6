import { Check, Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { Scope } from '@app/common';

export type OAuthAppType = 'confidential' | 'public';

/** A partner's app, owned by the organization that registered it (contract § 20). */
@Entity('oauth_apps')
@Check('oauth_apps_secret', `("type" = 'confidential') = ("secret_hash" IS NOT NULL)`)
@Index('oauth_apps_organization_created_idx', ['organizationId', 'createdAt'])
export class OAuthApp {
  @PrimaryColumn('text')
  id!: string;

  @Column('text')
  organizationId!: string;

  /** The public client identifier the partner's product sends (`client_id`). */
  @Index('oauth_apps_client_id_key', { unique: true })
  @Column('text')
  clientId!: string;

  @Column('text')
  name!: string;

  @Column('text')
  type!: OAuthAppType;

  @Column('text', { array: true })
  redirectUris!: string[];

  /** What the app may ask for. */
  @Column('text', { array: true })
  scopes!: Scope[];

  @Column('text', { nullable: true })
  homepageUrl!: string | null;

  @Column('text', { nullable: true })
  logoUrl!: string | null;

  /** sha256 of the client secret (confidential apps only). */
  @Column('text', { nullable: true })
  secretHash!: string | null;

  /** The secret before the last rotation, accepted until previousSecretExpiresAt. */
  @Column('text', { nullable: true })
  previousSecretHash!: string | null;

  @Column('timestamptz', { nullable: true })
  previousSecretExpiresAt!: Date | null;

  @Column('timestamptz')
  createdAt!: Date;

  @Column('timestamptz')
  updatedAt!: Date;
}
