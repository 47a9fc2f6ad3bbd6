import { Injectable } from '@nestjs/common';
import { AppError, Clock, ErrorCode, type Role, type TenantScope } from '@app/common';
import { TransactionHost } from '@app/database';
import { AuditTrail } from '../audit/index.js';
import { GlobalLookups } from '../global-lookups/index.js';
import { LOCKOUT_WINDOW_MS } from './auth-housekeeping.js';
import { AuthRepository } from './auth.repository.js';
import { LoginDto, TokensResponse } from './dto/auth.dto.js';
import { verifyPassword } from './password.js';
import { SessionsService } from './sessions.service.js';

const LOCKOUT_FAILURES = 10;
/** Failures of one email from all client addresses together that lock it everywhere. */
const LOCKOUT_FAILURES_ALL_CLIENTS = 100;

/**
 * Another module's say on a password sign-in (single sign-on's enforcement, contract § 21), before the password is
 * checked: it throws to refuse. Registered once at start-up (auth cannot call the modules that depend on it).
 */
export type PasswordSignInCheck = (email: string, membership: { scope: TenantScope; role: Role }) => Promise<void>;

/** Signing in with email and password (`/auth/login` and the console's login), under the lockout. */
@Injectable()
export class LoginService {
  constructor(
    private readonly tx: TransactionHost,
    private readonly repository: AuthRepository,
    private readonly lookups: GlobalLookups,
    private readonly sessions: SessionsService,
    private readonly clock: Clock,
    private readonly audit: AuditTrail,
  ) {}

  private readonly checks: PasswordSignInCheck[] = [];

  onPasswordSignIn(check: PasswordSignInCheck): void {
    this.checks.push(check);
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
      // A refused sign-in is a failed one too (contract § 18: `session.failed`, reason `locked`), in the log of the
      // organization of the user the email names; an unknown email has none.
      const user = await this.repository.findUserByEmail(dto.email);
      if (user) {
        this.audit.describe({ actor: { type: 'user', id: user.id, label: user.email }, details: { reason: 'locked' } });
        await this.lookups.activeMembershipOf(user.id);
      }
      const retryAfter = Math.max(1, Math.ceil(((locked.oldest?.getTime() ?? now.getTime()) + LOCKOUT_WINDOW_MS - now.getTime()) / 1000));
      throw new AppError(ErrorCode.RATE_LIMITED, 'Too many failed logins for this email; try again later', undefined, {
        'Retry-After': String(retryAfter),
      });
    }
    const user = await this.repository.findUserByEmail(dto.email);
    if (user && this.checks.length > 0) {
      const membership = await this.lookups.activeMembershipOf(user.id);
      if (membership) for (const check of this.checks) await check(user.email, membership);
    }
    const passwordOk = await verifyPassword(user?.passwordHash, dto.password);
    if (user) this.audit.describe({ actor: { type: 'user', id: user.id, label: user.email } });
    const member = user && passwordOk ? await this.lookups.activeMembershipOf(user.id) : null;
    if (!user || !passwordOk || !member) {
      await this.repository.recordLoginFailure(dto.email, clientIp, now, since);
      this.audit.describe({ details: { reason: 'invalid_credentials' } });
      // The failed sign-in (session.failed) goes to the log of the user's organization, which this lookup names; an
      // unknown email has none.
      if (user && !passwordOk) await this.lookups.activeMembershipOf(user.id);
      throw new AppError(ErrorCode.INVALID_CREDENTIALS, 'Invalid email or password');
    }
    return this.tx.transaction(async () => {
      await this.repository.clearLoginFailures(dto.email, clientIp);
      return this.sessions.startSession(user.id, member.memberId, member.scope, userAgent);
    });
  }
}
