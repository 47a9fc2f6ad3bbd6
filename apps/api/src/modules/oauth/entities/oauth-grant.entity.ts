import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { Scope } from '@app/common';

/** What a connecting organization allowed an app: one grant per organization and app, widened by later approvals. */
@Entity('oauth_grants')
@Index('oauth_grants_organization_app_key', ['organizationId', 'appId'], { unique: true })
@Index('oauth_grants_app_idx', ['appId'])
export class OAuthGrant {
  @PrimaryColumn('text')
  id!: string;

  /** The connecting organization. */
  @Column('text')
  organizationId!: string;

  @Column('text')
  appId!: string;

  @Column('text', { array: true })
  scopes!: Scope[];

  /** The member who last approved: the "acting user" of the app's requests, as an API key's creator is. */
  @Column('text')
  actingUserId!: string;

  @Column('timestamptz')
  createdAt!: Date;

  @Column('timestamptz')
  updatedAt!: Date;

  @Column('timestamptz', { nullable: true })
  lastUsedAt!: Date | null;
}
