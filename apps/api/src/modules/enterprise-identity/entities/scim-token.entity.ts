import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** An organization's SCIM token (contract § 21): one at a time, stored hashed. */
@Entity('scim_tokens')
export class ScimToken {
  @PrimaryColumn('text')
  organizationId!: string;

  @Index('scim_tokens_token_hash_key', { unique: true })
  @Column('text')
  tokenHash!: string;

  @Column('timestamptz')
  createdAt!: Date;
}
