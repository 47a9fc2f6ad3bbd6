import { Injectable } from '@nestjs/common';
import { DataSource, IsNull, MoreThan } from 'typeorm';
import type { Role } from '@app/common';
import { LoginFailure } from './entities/login-failure.entity.js';
import { Session } from './entities/session.entity.js';
import { User } from './entities/user.entity.js';
import { TransactionHost } from '@app/database';

export interface SessionPrincipalRow {
  session_id: string;
  user_id: string;
  member_id: string;
  organization_id: string;
  role: Role;
  revoked_at: Date | null;
  expires_at: Date;
  last_used_at: Date;
}

export interface MeRow {
  id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  timezone: string;
  created_at: Date;
  organization_id: string;
  organization_name: string;
  organization_slug: string;
  member_id: string | null;
}

@Injectable()
export class AuthRepository {
  constructor(
    private readonly tx: TransactionHost,
    private readonly dataSource: DataSource,
  ) {}

  findUserByEmail(email: string): Promise<User | null> {
    return this.tx.manager.findOne(User, { where: { email } });
  }

  findUser(id: string): Promise<User | null> {
    return this.tx.manager.findOne(User, { where: { id } });
  }

  /**
   * GET /users/me in one query: the user, the organization and the user's active membership
   * (read here, next to the session lookup, because it is on the hot path of every key check bench).
   */
  async findMe(userId: string, organizationId: string): Promise<MeRow | null> {
    const rows: MeRow[] = await this.dataSource.query(
      `SELECT u.id, u.email, u.first_name, u.last_name, u.timezone, u.created_at,
              o.id AS organization_id, o.name AS organization_name, o.slug AS organization_slug, m.id AS member_id
         FROM users u
         JOIN organizations o ON o.id = $2
         LEFT JOIN members m ON m.user_id = u.id AND m.organization_id = o.id AND m.status = 'active'
        WHERE u.id = $1`,
      [userId, organizationId],
    );
    return rows[0] ?? null;
  }

  async insertUser(user: User): Promise<void> {
    await this.tx.manager.insert(User, user);
  }

  async updateUser(id: string, changes: Partial<User>): Promise<void> {
    await this.tx.manager.update(User, { id }, changes);
  }

  async insertSession(session: Session): Promise<void> {
    await this.tx.manager.insert(Session, session);
  }

  findSession(id: string): Promise<Session | null> {
    return this.tx.manager.findOne(Session, { where: { id } });
  }

  /** What every JWT request needs, in one query: the session and the membership it belongs to. */
  async findSessionPrincipal(sessionId: string): Promise<SessionPrincipalRow | null> {
    const rows: SessionPrincipalRow[] = await this.dataSource.query(
      `SELECT s.id AS session_id, s.user_id, s.member_id, m.organization_id, m.role, s.revoked_at, s.expires_at, s.last_used_at
         FROM sessions s JOIN members m ON m.id = s.member_id AND m.status = 'active'
        WHERE s.id = $1`,
      [sessionId],
    );
    return rows[0] ?? null;
  }

  /** Rotation succeeds only from the hash the caller saw, so two refreshes with one token cannot both win. */
  async rotateRefreshToken(id: string, fromHash: string, toHash: string, at: Date): Promise<boolean> {
    const result = await this.tx.manager.update(
      Session,
      { id, refreshTokenHash: fromHash, revokedAt: IsNull() },
      { refreshTokenHash: toHash, lastUsedAt: at },
    );
    return (result.affected ?? 0) > 0;
  }

  async revokeSession(id: string, at: Date, userId?: string): Promise<boolean> {
    const result = await this.tx.manager.update(Session, { id, revokedAt: IsNull(), ...(userId ? { userId } : {}) }, { revokedAt: at });
    return (result.affected ?? 0) > 0;
  }

  async touchSession(id: string, at: Date): Promise<void> {
    await this.dataSource.query(
      `UPDATE sessions SET last_used_at = $2 WHERE id = $1 AND last_used_at <= $2::timestamptz - interval '1 minute'`,
      [id, at],
    );
  }

  listActiveSessions(userId: string, now: Date): Promise<Session[]> {
    return this.tx.manager.find(Session, {
      where: { userId, revokedAt: IsNull(), expiresAt: MoreThan(now) },
      order: { createdAt: 'DESC', id: 'ASC' },
    });
  }

  async countRecentLoginFailures(email: string, since: Date): Promise<{ count: number; oldest: Date | null }> {
    const rows: { count: string; oldest: Date | null }[] = await this.dataSource.query(
      `SELECT count(*) AS count, min(failed_at) AS oldest FROM login_failures WHERE email = $1 AND failed_at > $2`,
      [email, since],
    );
    return { count: Number(rows[0]?.count ?? 0), oldest: rows[0]?.oldest ?? null };
  }

  /** Also forgets this email's failures that have left the window, so the table stays small. */
  async recordLoginFailure(email: string, at: Date, windowStart: Date): Promise<void> {
    await this.tx.manager.insert(LoginFailure, { email, failedAt: at });
    await this.dataSource.query(`DELETE FROM login_failures WHERE email = $1 AND failed_at <= $2`, [email, windowStart]);
  }

  async clearLoginFailures(email: string): Promise<void> {
    await this.tx.manager.delete(LoginFailure, { email });
  }
}
