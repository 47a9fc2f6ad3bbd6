import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/**
 * Failed logins, shared by every instance: within 15 minutes, 10 of one email from one client address lock that
 * address out for the email; 100 from all addresses lock the email.
 */
@Entity('login_failures')
@Index('login_failures_email_at_idx', ['email', 'failedAt'])
// The sweep of failures past their window (AuthRepository.deleteLoginFailuresBefore).
@Index('login_failures_failed_at_idx', ['failedAt'])
@Index('login_failures_email_client_at_idx', ['email', 'clientIp', 'failedAt'])
export class LoginFailure {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' })
  id!: string;

  @Column('text')
  email!: string;

  @Column('timestamptz')
  failedAt!: Date;

  /** The client address the attempt came from ('' for failures recorded before addresses were). */
  @Column('text', { default: '' })
  clientIp!: string;
}
