import { Injectable } from '@nestjs/common';
import { IsNull, MoreThan } from 'typeorm';
import { LoginFailure } from './entities/login-failure.entity.js';
import { Session } from './entities/session.entity.js';
import { User } from './entities/user.entity.js';
import { TransactionHost } from '@app/database';

/**
 * Users, sessions and login failures: account data, not organization data (a user is one person whatever
 * organization it belongs to), so these methods take no TenantScope; see the module-boundaries test.
 */
/** Failed logins in the window and the oldest of them (when the count drops by one). */
export interface FailureCount {
  count: number;
  oldest: Date | null;
}

@Injectable()
export class AuthRepository {
  constructor(private readonly tx: TransactionHost) {}

  findUserByEmail(email: string): Promise<User | null> {
    return this.tx.reads.findOne(User, { where: { email } });
  }

  findUser(id: string): Promise<User | null> {
    return this.tx.reads.findOne(User, { where: { id } });
  }

  async insertUser(user: User): Promise<void> {
    await this.tx.transactional.insert(User, user);
  }

  async updateUser(id: string, changes: Partial<User>): Promise<void> {
    await this.tx.transactional.update(User, { id }, changes);
  }

  async insertSession(session: Session): Promise<void> {
    await this.tx.transactional.insert(Session, session);
  }

  findSession(id: string): Promise<Session | null> {
    return this.tx.reads.findOne(Session, { where: { id } });
  }

  /** Rotation succeeds only from the hash the caller saw, so two refreshes with one token cannot both win. */
  async rotateRefreshToken(id: string, fromHash: string, toHash: string, at: Date): Promise<boolean> {
    const result = await this.tx.transactional.update(
      Session,
      { id, refreshTokenHash: fromHash, revokedAt: IsNull() },
      { refreshTokenHash: toHash, lastUsedAt: at },
    );
    return (result.affected ?? 0) > 0;
  }

  async revokeSession(id: string, at: Date, userId?: string): Promise<boolean> {
    const result = await this.tx.transactional.update(
      Session,
      { id, revokedAt: IsNull(), ...(userId ? { userId } : {}) },
      { revokedAt: at },
    );
    return (result.affected ?? 0) > 0;
  }

  /**
   * Job: up to `limit` sessions that ended (revoked or expired) before `cutoff`, across users; returns how many went. By
   * the expiry index and the partial index of revoked sessions; rows a request has locked are left for the next round.
   */
  async deleteEndedSessions(cutoff: Date, limit: number): Promise<number> {
    const [, count]: [unknown[], number] = await this.tx.outside('the sweep runs as a job of its own, in autocommit').query(
      `WITH ended AS (SELECT id FROM sessions WHERE expires_at < $1 OR revoked_at < $1 LIMIT $2 FOR UPDATE SKIP LOCKED)
         DELETE FROM sessions s USING ended e WHERE s.id = e.id`,
      [cutoff, limit],
    );
    return count ?? 0;
  }

  async touchSession(id: string, at: Date): Promise<void> {
    await this.tx
      .outside('a session’s last use is bookkeeping, never part of the request’s transaction')
      .query(`UPDATE sessions SET last_used_at = $2 WHERE id = $1 AND last_used_at <= $2::timestamptz - interval '1 minute'`, [id, at]);
  }

  listActiveSessions(userId: string, now: Date): Promise<Session[]> {
    return this.tx.reads.find(Session, {
      where: { userId, revokedAt: IsNull(), expiresAt: MoreThan(now) },
      order: { createdAt: 'DESC', id: 'ASC' },
    });
  }

  /** This email's failures since `since`: from this client address, and from all of them; each with its oldest. */
  async countRecentLoginFailures(email: string, clientIp: string, since: Date): Promise<{ fromClient: FailureCount; all: FailureCount }> {
    const [row]: { from_client: number; oldest_from_client: Date | null; all: number; oldest: Date | null }[] = await this.tx
      .outside('counts what other attempts committed, whatever the login’s own transaction holds')
      .query(
        `SELECT count(*) FILTER (WHERE client_ip = $2)::int AS from_client, min(failed_at) FILTER (WHERE client_ip = $2) AS oldest_from_client,
              count(*)::int AS all, min(failed_at) AS oldest
         FROM login_failures WHERE email = $1 AND failed_at > $3`,
        [email, clientIp, since],
      );
    return { fromClient: { count: row.from_client, oldest: row.oldest_from_client }, all: { count: row.all, oldest: row.oldest } };
  }

  /** Also forgets this email's failures that have left the window, so the table stays small. */
  async recordLoginFailure(email: string, clientIp: string, at: Date, windowStart: Date): Promise<void> {
    const failures = this.tx.outside('a failed login counts even when the login’s transaction rolls back');
    await failures.insert(LoginFailure, { email, clientIp, failedAt: at });
    await failures.query(`DELETE FROM login_failures WHERE email = $1 AND failed_at <= $2`, [email, windowStart]);
  }

  /** Users left without a membership by an organization's deletion. */
  async deleteUsers(userIds: readonly string[]): Promise<void> {
    if (userIds.length > 0) await this.tx.transactional.query(`DELETE FROM users WHERE id = ANY($1::text[])`, [[...userIds]]);
  }

  /** After a successful login from this address: its failures for the email no longer count (other addresses' still do). */
  /** The sweep: failures older than `before` count toward no lockout any more. */
  async deleteLoginFailuresBefore(before: Date): Promise<number> {
    const [, count]: [unknown[], number] = await this.tx
      .outside('the sweep runs as a job of its own, in autocommit')
      .query(`DELETE FROM login_failures WHERE failed_at <= $1`, [before]);
    return count ?? 0;
  }

  async clearLoginFailures(email: string, clientIp: string): Promise<void> {
    await this.tx.transactional.delete(LoginFailure, { email, clientIp });
  }
}
