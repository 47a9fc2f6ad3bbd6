import { Injectable } from '@nestjs/common';
import { AppError, Clock, ErrorCode, isUniqueViolation, newId, Principal, sha256, tenantScope } from '@app/common';
import { TransactionHost } from '@app/database';
import { AuditTrail } from '../audit/index.js';
import { SchedulesService } from '../schedules/index.js';
import { GlobalLookups } from '../global-lookups/index.js';
import { InvitationsService, organizationView, TeamService } from '../team/index.js';
import { AuthRepository } from './auth.repository.js';
import { RegisterDto, RegisterResponse } from './dto/auth.dto.js';
import { AcceptInvitationDto, AcceptInvitationResponse } from './dto/invitation.dto.js';
import { User } from './entities/user.entity.js';
import { hashPassword } from './password.js';
import { SessionsService } from './sessions.service.js';
import { userView } from './users.service.js';

function emailTaken(): AppError {
  return new AppError(ErrorCode.EMAIL_TAKEN, 'This email already belongs to a member of an organization');
}

/** How a user comes to be: registering with a new organization, or accepting an invitation into one. */
@Injectable()
export class RegistrationService {
  constructor(
    private readonly tx: TransactionHost,
    private readonly repository: AuthRepository,
    private readonly lookups: GlobalLookups,
    private readonly team: TeamService,
    private readonly invitations: InvitationsService,
    private readonly schedules: SchedulesService,
    private readonly sessions: SessionsService,
    private readonly clock: Clock,
    private readonly audit: AuditTrail,
  ) {}

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
        const tokens = await this.sessions.startSession(user.id, member.id, tenantScope(owner), userAgent);
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
        const tokens = await this.sessions.startSession(user.id, member.id, invitation.scope, userAgent);
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
}
