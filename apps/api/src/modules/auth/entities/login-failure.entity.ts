import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** Failed logins per email, shared by every instance: 10 within 15 minutes lock the email out. */
@Entity('login_failures')
@Index('login_failures_email_at_idx', ['email', 'failedAt'])
export class LoginFailure {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' })
  id!: string;

  @Column('text')
  email!: string;

  @Column('timestamptz')
  failedAt!: Date;
}
