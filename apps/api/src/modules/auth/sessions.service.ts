import { Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { AppConfig, AppError, Clock, newId, Principal, randomBase62, sha256, type TenantScope } from '@app/common';
import { TransactionHost } from '@app/database';
import { AuditTrail } from '../audit/index.js';
import { GlobalLookups } from '../global-lookups/index.js';
import { AuthRepository } from './auth.repository.js';
import { SessionListResponse, TokensResponse } from './dto/auth.dto.js';
import { Session } from './entities/session.entity.js';
import { AccessTokenClaims, JWT_AUDIENCE, JWT_ISSUER } from './jwt.strategy.js';

export const REFRESH_TTL_MS = 30 * 24 * 3600 * 1000;
const USER_AGENT_MAX = 512;

/** Refresh tokens are `<sessionId>.<secret>`: the id finds the session, the secret proves possession. */
function splitRefreshToken(token: string): { sessionId: string; secret: string } | null {
  const match = /^(ses_[0-9A-Za-z]{20,64})\.([0-9A-Za-z]{43})$/.exec(token);
  return match ? { sessionId: match[1], secret: match[2] } : null;
}

/** Sessions and their tokens: starting one, rotating its refresh token, the per-request check, ending and listing them. */
@Injectable()
export class SessionsService {
  constructor(
    private readonly tx: TransactionHost,
    private readonly repository: AuthRepository,
    private readonly lookups: GlobalLookups,
    private readonly jwt: JwtService,
    private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly audit: AuditTrail,
  ) {}

  /** A new session and its first token pair, in the caller's transaction (registration, invitation, login). */
  async startSession(userId: string, memberId: string, scope: TenantScope, userAgent: string | undefined): Promise<TokensResponse> {
    const now = this.clock.now();
    const secret = randomBase62(43);
    const session = Object.assign(new Session(), {
      id: newId('ses'),
      userId,
      memberId,
      refreshTokenHash: sha256(secret),
      userAgent: userAgent ? userAgent.slice(0, USER_AGENT_MAX) : null,
      createdAt: now,
      lastUsedAt: now,
      expiresAt: new Date(now.getTime() + REFRESH_TTL_MS),
      revokedAt: null,
    } satisfies Session);
    await this.repository.insertSession(session);
    return this.tokens(session.id, userId, scope.organizationId, secret);
  }

  async refresh(refreshToken: string): Promise<TokensResponse> {
    const parts = splitRefreshToken(refreshToken);
    if (!parts) throw AppError.unauthorized('Invalid refresh token');
    const now = this.clock.now();
    const principal = await this.lookups.sessionById(parts.sessionId);
    if (!principal || principal.revokedAt || principal.expiresAt.getTime() <= now.getTime()) {
      throw AppError.unauthorized('Invalid refresh token');
    }
    this.audit.describe({ actor: { type: 'user', id: principal.userId, label: principal.email }, resourceId: principal.sessionId });
    const presentedHash = sha256(parts.secret);
    const session = await this.repository.findSession(parts.sessionId);
    const nextSecret = randomBase62(43);
    const rotated = await this.tx.transaction(async () => {
      const ok =
        session !== null &&
        session.refreshTokenHash === presentedHash &&
        (await this.repository.rotateRefreshToken(parts.sessionId, presentedHash, sha256(nextSecret), now));
      // A rotated token came back: someone holds a copy. End the whole session.
      if (!ok) {
        this.audit.describe({ action: 'session.revoked', details: { reason: 'refresh token reuse' } });
        await this.repository.revokeSession(parts.sessionId, now);
      }
      return ok;
    });
    if (!rotated) throw AppError.unauthorized('Refresh token reuse detected; the session has been revoked');
    return this.tokens(principal.sessionId, principal.userId, principal.scope.organizationId, nextSecret);
  }

  private tokens(sessionId: string, userId: string, organizationId: string, secret: string): TokensResponse {
    const iat = Math.floor(this.clock.now().getTime() / 1000);
    const claims: AccessTokenClaims = {
      sub: userId,
      org: organizationId,
      sid: sessionId,
      iat,
      exp: iat + this.config.jwtAccessTtl,
      iss: JWT_ISSUER,
      aud: JWT_AUDIENCE,
    };
    return {
      accessToken: this.jwt.sign(claims, { algorithm: 'HS256', secret: this.config.jwtSecret }),
      refreshToken: `${sessionId}.${secret}`,
      tokenType: 'Bearer',
      expiresIn: this.config.jwtAccessTtl,
    };
  }

  /** The per-request session check behind every JWT: revoked, expired or membership gone → 401. */
  async principalForToken(claims: AccessTokenClaims): Promise<Principal> {
    const row = await this.lookups.sessionById(claims.sid);
    const now = this.clock.now();
    if (
      !row ||
      row.revokedAt ||
      row.expiresAt.getTime() <= now.getTime() ||
      row.userId !== claims.sub ||
      row.scope.organizationId !== claims.org
    ) {
      throw AppError.unauthorized('The session has ended');
    }
    if (now.getTime() - row.lastUsedAt.getTime() >= 60_000) this.repository.touchSession(row.sessionId, now).catch(() => undefined);
    return {
      type: 'user',
      organizationId: row.scope.organizationId,
      userId: row.userId,
      memberId: row.memberId,
      role: row.role,
      sessionId: row.sessionId,
      label: row.email,
      livemode: row.scope.livemode,
    };
  }

  async logout(principal: Principal): Promise<void> {
    const sessionId = principal.sessionId;
    if (sessionId) this.audit.describe({ resourceId: sessionId });
    if (sessionId) await this.tx.transaction(() => this.repository.revokeSession(sessionId, this.clock.now()));
  }

  /** Ends the session a refresh token belongs to, if the token is its current one; anything else is ignored. */
  async endSessionOf(refreshToken: string): Promise<void> {
    const parts = splitRefreshToken(refreshToken);
    if (!parts) return;
    const session = await this.repository.findSession(parts.sessionId);
    // The session's organization and member, for the audit entry of a console sign-out (which has no principal).
    const credential = session ? await this.lookups.sessionById(session.id) : null;
    if (credential)
      this.audit.describe({ actor: { type: 'user', id: credential.userId, label: credential.email }, resourceId: session!.id });
    if (session?.refreshTokenHash === sha256(parts.secret))
      await this.tx.transaction(() => this.repository.revokeSession(session.id, this.clock.now()));
  }

  async listSessions(principal: Principal): Promise<SessionListResponse> {
    const sessions = await this.repository.listActiveSessions(principal.userId, this.clock.now());
    return {
      sessions: sessions.map((s) => ({
        id: s.id,
        createdAt: s.createdAt.toISOString(),
        lastUsedAt: s.lastUsedAt.toISOString(),
        userAgent: s.userAgent,
        current: s.id === principal.sessionId,
      })),
    };
  }

  async deleteSession(principal: Principal, sessionId: string): Promise<void> {
    const revoked = await this.tx.transaction(() => this.repository.revokeSession(sessionId, this.clock.now(), principal.userId));
    if (!revoked) throw AppError.notFound('Session');
  }
}
