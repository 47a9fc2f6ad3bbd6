import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { Role } from '@app/common';

/**
 * What the directory knows of a user of this organization beyond its membership (contract § 21): its `externalId`, and
 * whether it is active; a deactivated user's role, restored when it is activated again.
 */
@Entity('scim_users')
export class ScimUser {
  @PrimaryColumn('text')
  organizationId!: string;

  @PrimaryColumn('text')
  userId!: string;

  @Column('text', { nullable: true })
  externalId!: string | null;

  @Column('boolean')
  active!: boolean;

  /** The role it had (and gets back when activated again). */
  @Column('text')
  role!: Role;

  @Column('timestamptz')
  updatedAt!: Date;
}
