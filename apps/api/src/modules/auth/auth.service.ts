import { Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import {
  AppConfig,
  AppError,
  Clock,
  ErrorCode,
  newId,
  type KeyActor,
  Principal,
  randomBase62,
  sha256,
  isUniqueViolation,
  tenantScope,
  type TenantScope,
} from '@app/common';
import { AuditTrail, changesBetween } from '../audit/index.js';
import { GlobalLookups } from '../global-lookups/index.js';
import { SchedulesService } from '../schedules/index.js';
import { InvitationsService } from '../team/index.js';
import { organizationView } from '../team/index.js';
import { TeamService } from '../team/index.js';
import { AuthRepository } from './auth.repository.js';
import { MeReadModel, type MeRow } from './me.read-model.js';
import {
  LoginDto,
  MeResponse,
  RegisterDto,
  RegisterResponse,
  SessionListResponse,
  TokensResponse,
  UpdateMeDto,
  UserView,
} from './dto/auth.dto.js';
import { AcceptInvitationDto, AcceptInvitationResponse } from './dto/invitation.dto.js';
import { User } from './entities/user.entity.js';
import { Session } from './entities/session.entity.js';
import { AccessTokenClaims, JWT_AUDIENCE, JWT_ISSUER } from './jwt.strategy.js';
import { hashPassword, verifyPassword } from './password.js';
import { TransactionHost } from '@app/database';
import { LOCKOUT_WINDOW_MS } from './auth-housekeeping.js';

export const REFRESH_TTL_MS = 30 * 24 * 3600 * 1000;
const LOCKOUT_FAILURES = 10;
/** Failures of one email from all client addresses together that lock it everywhere. */
const LOCKOUT_FAILURES_ALL_CLIENTS = 100;
const USER_AGENT_MAX = 512;

export function userView(user: User): UserView {
  return {
    id: user.id,
    email: user.email,
    firstName: user.firstName,
    lastName: user.lastName,
    timezone: user.timezone,
    createdAt: user.createdAt.toISOString(),
  };
}

function emailTaken(): AppError {
  return new AppError(ErrorCode.EMAIL_TAKEN, 'This email already belongs to a member of an organization');
}

/** Refresh tokens are `<sessionId>.<secret>`: the id finds the session, the secret proves possession. */
function splitRefreshToken(token: string): { sessionId: string; secret: string } | null {
  const match = /^(ses_[0-9A-Za-z]{20,64})\.([0-9A-Za-z]{43})$/.exec(token);
  return match ? { sessionId: match[1], secret: match[2] } : null;
}

@Injectable()
export class AuthService {
  constructor(
    private readonly tx: TransactionHost,
    private readonly repository: AuthRepository,
    private readonly meReadModel: MeReadModel,
    private readonly lookups: GlobalLookups,
    private readonly team: TeamService,
    private readonly invitations: InvitationsService,
    private readonly schedules: SchedulesService,
    private readonly jwt: JwtService,
    private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly audit: AuditTrail,
  ) {
    // A deleted organization's members' users are members of nothing any more (one organization per user).
    team.onOrganizationDeleted((_scope, userIds) => this.repository.deleteUsers(userIds));
  }

  async register(dto: RegisterDto, userAgent: string | undefined): Promise<RegisterResponse> {
    const passwordHash = await hashPassword(dto.password);
    try {
      return await this.tx.transaction(async () => {
        // Two registrations of one email at once: the unique index refuses one, and its email stays out of the log.
        await this.tx.keepErrorDetailsOutOfLog();
        if (await this.repository.findUserByEmail(dto.email)) throw new AppError(ErrorCode.EMAIL_TAKEN, 'This email is already registered');
        const user = await this.createUser({ ...dto, passwordHash });
        this.audit.describe({ actor: { type: 'user', id: user.id, label: user.email } });
        const { organization, member, owner } = await this.team.createOrganizationWithOwner({
          name: dto.organizationName,
          userId: user.id,
          email: user.email,
          firstName: user.firstName,
          lastName: user.lastName,
        });
        await this.schedules.createDefaultSchedule(owner, user.timezone);
        const tokens = await this.startSession(user.id, member.id, tenantScope(owner), userAgent);
        return {
          user: userView(user),
          organization: organizationView(organization),
          member: { id: member.id, role: member.role, email: member.email, status: member.status },
          ...tokens,
        };
      });
    } catch (error) {
      if (isUniqueViolation(error, 'users_email_key')) throw new AppError(ErrorCode.EMAIL_TAKEN, 'This email is already registered');
      if (isUniqueViolation(error, 'organizations_slug_key')) return this.register(dto, userAgent);
      throw error;
    }
  }

  /**
   * Accepting an invitation: in one transaction the invitation is spent, the user is created (or a
   * user left without any membership is re-attached with the new password), the membership becomes
   * active and a session starts. One organization per user: an email with an active membership → 409.
   */
  async acceptInvitation(dto: AcceptInvitationDto, userAgent: string | undefined): Promise<AcceptInvitationResponse> {
    const passwordHash = await hashPassword(dto.password);
    try {
      return await this.tx.transaction(async () => {
        await this.tx.keepErrorDetailsOutOfLog();
        const invitation = await this.invitations.openInvitation(sha256(dto.token));
        const existing = await this.repository.findUserByEmail(invitation.email);
        let user: User;
        if (existing) {
          if (await this.lookups.activeMembershipOf(existing.id)) throw emailTaken();
          const changes = {
            passwordHash,
            firstName: dto.firstName ?? existing.firstName ?? invitation.firstName,
            lastName: dto.lastName ?? existing.lastName ?? invitation.lastName,
            timezone: dto.timezone ?? existing.timezone,
            updatedAt: this.clock.now(),
          } satisfies Partial<User>;
          await this.repository.updateUser(existing.id, changes);
          user = Object.assign(existing, changes);
        } else {
          user = await this.createUser({
            email: invitation.email,
            passwordHash,
            firstName: dto.firstName ?? invitation.firstName,
            lastName: dto.lastName ?? invitation.lastName,
            timezone: dto.timezone,
          });
        }
        const member = await this.invitations.completeInvitation(invitation, user);
        this.audit.describe({ actor: { type: 'user', id: user.id, label: user.email }, resourceId: member.id });
        const joined: Principal = {
          type: 'user',
          organizationId: invitation.scope.organizationId,
          userId: user.id,
          memberId: member.id,
          role: member.role,
          livemode: true,
        };
        await this.schedules.createDefaultSchedule(joined, user.timezone);
        const tokens = await this.startSession(user.id, member.id, invitation.scope, userAgent);
        return { member, ...tokens };
      });
    } catch (error) {
      // Two organizations' invitations for one new email accepted at once: the unique indexes pick one.
      if (isUniqueViolation(error, 'users_email_key') || isUniqueViolation(error, 'members_user_id_key')) throw emailTaken();
      throw error;
    }
  }

  /** Creates a user in the caller's transaction (registration, invitation acceptance). */
  async createUser(input: {
    email: string;
    passwordHash: string;
    firstName?: string | null;
    lastName?: string | null;
    timezone?: string;
  }): Promise<User> {
    const now = this.clock.now();
    const user = Object.assign(new User(), {
      id: newId('usr'),
      email: input.email.toLowerCase(),
      passwordHash: input.passwordHash,
      firstName: input.firstName ?? null,
      lastName: input.lastName ?? null,
      timezone: input.timezone ?? 'UTC',
      createdAt: now,
      updatedAt: now,
    } satisfies User);
    await this.repository.insertUser(user);
    return user;
  }

  /**
   * Lockout (api-rules.md § Auth): 10 failures of one email from one client address within 15 minutes lock that
   * address out for the email, the right password included; other addresses are not locked by them, so one
   * client cannot lock a user out. 100 from all addresses together lock the email everywhere.
   */
  async login(dto: LoginDto, userAgent: string | undefined, clientIp: string): Promise<TokensResponse> {
    const now = this.clock.now();
    const since = new Date(now.getTime() - LOCKOUT_WINDOW_MS);
    const failures = await this.repository.countRecentLoginFailures(dto.email, clientIp, since);
    const locked =
      failures.fromClient.count >= LOCKOUT_FAILURES
        ? failures.fromClient
        : failures.all.count >= LOCKOUT_FAILURES_ALL_CLIENTS
          ? failures.all
          : null;
    if (locked) {
      const retryAfter = Math.max(1, Math.ceil(((locked.oldest?.getTime() ?? now.getTime()) + LOCKOUT_WINDOW_MS - now.getTime()) / 1000));
      throw new AppError(ErrorCode.RATE_LIMITED, 'Too many failed logins for this email; try again later', undefined, {
        'Retry-After': String(retryAfter),
      });
    }
    const user = await this.repository.findUserByEmail(dto.email);
    const passwordOk = await verifyPassword(user?.passwordHash, dto.password);
    if (user) this.audit.describe({ actor: { type: 'user', id: user.id, label: user.email } });
    const member = user && passwordOk ? await this.lookups.activeMembershipOf(user.id) : null;
    if (!user || !passwordOk || !member) {
      await this.repository.recordLoginFailure(dto.email, clientIp, now, since);
      // The failed sign-in (session.failed) goes to the log of the user's organization, which this lookup names; an
      // unknown email has none.
      if (user && !passwordOk) await this.lookups.activeMembershipOf(user.id);
      throw new AppError(ErrorCode.INVALID_CREDENTIALS, 'Invalid email or password');
    }
    return this.tx.transaction(async () => {
      await this.repository.clearLoginFailures(dto.email, clientIp);
      return this.startSession(user.id, member.memberId, member.scope, userAgent);
    });
  }

  /** A new session and its first token pair. */
  private async startSession(userId: string, memberId: string, scope: TenantScope, userAgent: string | undefined): Promise<TokensResponse> {
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

  async me(principal: Principal): Promise<MeResponse> {
    // An API key's lookup read its acting user already, in the same statement.
    const row = principal.apiKey
      ? meRowOf(principal, principal.apiKey.actor)
      : await this.meReadModel.find(tenantScope(principal), principal.userId);
    if (!row) throw AppError.unauthorized('The acting user no longer exists');
    const response: MeResponse = {
      user: {
        id: row.id,
        email: row.email,
        firstName: row.first_name,
        lastName: row.last_name,
        timezone: row.timezone,
        createdAt: row.created_at.toISOString(),
      },
      organization: { id: row.organization_id, name: row.organization_name, slug: row.organization_slug },
      member: { id: principal.type === 'api_key' ? row.member_id : principal.memberId, role: principal.role },
    };
    if (principal.apiKey) response.apiKey = { id: principal.apiKey.id, scopes: principal.apiKey.scopes, mode: principal.apiKey.mode };
    return response;
  }

  async updateMe(principal: Principal, dto: UpdateMeDto): Promise<{ user: UserView }> {
    const changes: Partial<User> = { updatedAt: this.clock.now() };
    if (dto.firstName !== undefined) changes.firstName = dto.firstName;
    if (dto.lastName !== undefined) changes.lastName = dto.lastName;
    if (dto.timezone !== undefined) changes.timezone = dto.timezone;
    return this.tx.transaction(async () => {
      const before = await this.repository.findUser(principal.userId);
      if (before) this.audit.describe({ changes: changesBetween(before, changes) });
      await this.repository.updateUser(principal.userId, changes);
      const user = await this.repository.findUser(principal.userId);
      if (!user) throw AppError.unauthorized();
      if (dto.firstName !== undefined || dto.lastName !== undefined) {
        await this.team.syncProfileNames(principal, { firstName: user.firstName, lastName: user.lastName });
      }
      return { user: userView(user) };
    });
  }
}

function meRowOf(principal: Principal, actor: KeyActor | null): MeRow | null {
  if (!actor) return null;
  return {
    id: principal.userId,
    email: actor.email,
    first_name: actor.firstName,
    last_name: actor.lastName,
    timezone: actor.timezone,
    created_at: actor.createdAt,
    organization_id: principal.organizationId,
    organization_name: actor.organizationName,
    organization_slug: actor.organizationSlug,
    member_id: actor.memberId,
  };
}
