import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** An email domain an organization claims for single sign-on: unique across organizations (the primary key). */
@Entity('sso_domains')
@Index('sso_domains_organization_idx', ['organizationId'])
export class SsoDomain {
  @PrimaryColumn('text', { primaryKeyConstraintName: 'sso_domains_domain_key' })
  domain!: string;

  @Column('text')
  organizationId!: string;
}
