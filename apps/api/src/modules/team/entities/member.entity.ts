import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn, type Relation } from 'typeorm';
import type { Role } from '@app/common';
import { Organization } from './organization.entity.js';

export type MemberStatus = 'invited' | 'active';

/** A person's place in an organization: an invitation until accepted, then an active membership. */
@Entity('members')
@Index('members_organization_email_key', ['organizationId', 'email'], { unique: true })
@Index('members_organization_status_role_idx', ['organizationId', 'status', 'role'])
export class Member {
  @PrimaryColumn('text')
  id!: string;

  @Column('text')
  organizationId!: string;

  @ManyToOne(() => Organization, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'organization_id' })
  organization?: Relation<Organization>;

  /** One organization per user: a user has at most one membership. */
  @Index('members_user_id_key', { unique: true, where: 'user_id IS NOT NULL' })
  @Column('text', { nullable: true })
  userId!: string | null;

  @Column('text')
  email!: string;

  @Column('text', { nullable: true })
  firstName!: string | null;

  @Column('text', { nullable: true })
  lastName!: string | null;

  @Column('text')
  role!: Role;

  @Column('text')
  status!: MemberStatus;

  /** sha256 of the single-use invitation token; null once accepted. */
  @Index('members_invitation_token_hash_key', { unique: true, where: 'invitation_token_hash IS NOT NULL' })
  @Column('text', { nullable: true })
  invitationTokenHash!: string | null;

  @Column('timestamptz', { nullable: true })
  invitedAt!: Date | null;

  /** Limits on the starts this member hosts across event types (contract § 17); null: none. */
  @Column('jsonb', { nullable: true })
  bookingLimits!: { perDay: number | null; perWeek: number | null } | null;

  @Column('timestamptz', { nullable: true })
  joinedAt!: Date | null;

  /** The member's own locale for its mails (contract § 23, `PATCH /users/me`); null: the organization's default. */
  @Column('text', { nullable: true })
  locale!: string | null;

  @Column('timestamptz')
  createdAt!: Date;

  @Column('timestamptz')
  updatedAt!: Date;
}
