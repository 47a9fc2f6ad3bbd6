import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** A single sign-on in progress: what the callback checks, spent once (its `state` is `<id>.<secret>`). */
@Entity('sso_logins')
@Index('sso_logins_expires_idx', ['expiresAt'])
export class SsoLogin {
  @PrimaryColumn('text')
  id!: string;

  @Column('text')
  organizationId!: string;

  /** sha256 of the state's secret part. */
  @Column('text')
  secretHash!: string;

  @Column('text')
  codeVerifier!: string;

  @Column('text')
  nonce!: string;

  @Column('timestamptz')
  createdAt!: Date;

  @Column('timestamptz')
  expiresAt!: Date;

  /** When the callback spent it; a second callback with its state is refused. */
  @Column('timestamptz', { nullable: true })
  usedAt!: Date | null;
}
