import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { Role } from '@app/common';

/** An organization's OpenID Connect provider (contract § 21): one per organization. */
@Entity('sso_connections')
export class SsoConnection {
  @PrimaryColumn('text')
  organizationId!: string;

  @Column('text')
  issuer!: string;

  @Column('text')
  clientId!: string;

  /** Sealed with ENCRYPTION_KEY, the organization's id bound in (SecretSealer). */
  @Column('text')
  clientSecret!: string;

  @Column('boolean')
  enforce!: boolean;

  @Column('text')
  defaultRole!: Role;

  /** The provider's discovery document as read and checked when the configuration was saved. */
  @Column('jsonb')
  discovery!: Record<string, unknown>;

  @Column('timestamptz')
  createdAt!: Date;

  @Column('timestamptz')
  updatedAt!: Date;
}
