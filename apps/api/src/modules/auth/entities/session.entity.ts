import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn, type Relation } from 'typeorm';
import { User } from './user.entity.js';

/**
 * A login. Access tokens name it (`sid`) and every request checks it, so revoking it ends them at
 * once on every instance; removing the membership deletes it (cascade), and the session-cleanup job deletes it
 * RETENTION_DAYS after it was revoked or expired.
 */
@Entity('sessions')
@Index('sessions_user_id_idx', ['userId'])
// The session-cleanup sweep finds ended sessions by these: every one expires, only some are revoked.
@Index('sessions_expires_at_idx', ['expiresAt'])
@Index('sessions_revoked_at_idx', ['revokedAt'], { where: '"revoked_at" IS NOT NULL' })
export class Session {
  @PrimaryColumn('text')
  id!: string;

  @Column('text')
  userId!: string;

  @ManyToOne(() => User, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id' })
  user?: Relation<User>;

  @Column('text')
  memberId!: string;

  /** sha256 of the current refresh secret; older secrets of this session no longer match (reuse detection). */
  @Column('text')
  refreshTokenHash!: string;

  @Column('text', { nullable: true })
  userAgent!: string | null;

  @Column('timestamptz')
  createdAt!: Date;

  @Column('timestamptz')
  lastUsedAt!: Date;

  @Column('timestamptz')
  expiresAt!: Date;

  @Column('timestamptz', { nullable: true })
  revokedAt!: Date | null;
}
