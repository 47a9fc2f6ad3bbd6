import { Injectable } from '@nestjs/common';
import {
  AppConfig,
  AppError,
  canManageMember,
  Clock,
  ErrorCode,
  isUniqueViolation,
  newId,
  type Principal,
  randomBase62,
  sha256,
  type TenantScope,
} from '@app/common';
import { TransactionHost } from '@app/database';
import { GlobalLookups } from '../global-lookups/index.js';
import { MailOutbox } from '../mail/index.js';
import { InvitedMemberResponse, InviteMemberDto, JoinedMemberView } from './dto/team.dto.js';
import { Member } from './entities/member.entity.js';
import { invitationMail } from './invitation-mail.js';
import { TeamPolicy } from './team-policy.service.js';
import { TeamRepository } from './team.repository.js';

export const INVITATION_TTL_MS = 7 * 24 * 3600 * 1000;

/** A pending invitation, opened for acceptance: its rows stay locked until the caller's transaction ends. */
export interface OpenInvitation {
  scope: TenantScope;
  memberId: string;
  email: string;
  firstName: string | null;
  lastName: string | null;
}

/** Invitations: sent by owners and admins, opened and completed by the accepting user (through auth). */
@Injectable()
export class InvitationsService {
  constructor(
    private readonly tx: TransactionHost,
    private readonly repository: TeamRepository,
    private readonly policy: TeamPolicy,
    private readonly lookups: GlobalLookups,
    private readonly mail: MailOutbox,
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  async invite(principal: Principal, organizationId: string, dto: InviteMemberDto): Promise<InvitedMemberResponse> {
    const scope = this.policy.ownOrganization(principal, organizationId);
    const email = dto.email.toLowerCase();
    const token = randomBase62(43);
    try {
      return await this.tx.transaction(async () => {
        if (!(await this.repository.lockOrganization(scope, 'share'))) throw AppError.notFound('Organization');
        const actor = await this.policy.actingRole(principal);
        if (!canManageMember(actor, dto.role, dto.role)) throw AppError.forbidden('Only an owner may invite an owner');
        if (await this.repository.memberEmailExists(scope, email)) throw memberExists();
        if (await this.lookups.activeMemberElsewhere(scope, email)) {
          throw new AppError(ErrorCode.EMAIL_TAKEN, 'This email belongs to a member of another organization');
        }
        const organization = await this.policy.organization(scope);
        const now = this.clock.now();
        const member = Object.assign(new Member(), {
          id: newId('mem'),
          organizationId,
          userId: null,
          email,
          firstName: dto.firstName ?? null,
          lastName: dto.lastName ?? null,
          role: dto.role,
          status: 'invited',
          invitationTokenHash: sha256(token),
          invitedAt: now,
          joinedAt: null,
          bookingLimits: null,
          locale: null,
          createdAt: now,
          updatedAt: now,
        } satisfies Member);
        await this.tx.keepErrorDetailsOutOfLog();
        await this.repository.insertMember(scope, member);
        await this.mail.enqueue(
          scope,
          invitationMail({
            to: email,
            organizationName: organization.name,
            locale: organization.defaultLocale,
            role: member.role,
            acceptUrl: `${this.config.appUrl}/invitations/accept?token=${token}`,
            expiresAt: new Date(now.getTime() + INVITATION_TTL_MS),
          }),
        );
        await this.policy.record(scope, 'member.invited', member);
        return {
          member: {
            id: member.id,
            email: member.email,
            firstName: member.firstName,
            lastName: member.lastName,
            role: member.role,
            status: 'invited',
            invitedAt: now.toISOString(),
          },
        };
      });
    } catch (error) {
      // Two invitations for one email at once: the unique index lets only one of them in.
      if (isUniqueViolation(error, 'members_organization_email_key')) throw memberExists();
      throw error;
    }
  }

  /**
   * First half of accepting an invitation, in the caller's transaction: unknown, used or cancelled →
   * 404, older than 7 days → 410. The invitation stays locked so a second acceptance with the same
   * token waits and then finds it used.
   */
  async openInvitation(tokenHash: string): Promise<OpenInvitation> {
    const found = await this.lookups.invitationByTokenHash(tokenHash);
    if (!found?.invitedAt) throw invitationNotFound();
    if (found.invitedAt.getTime() + INVITATION_TTL_MS <= this.clock.now().getTime()) {
      throw new AppError(ErrorCode.INVITATION_EXPIRED, 'This invitation has expired; ask for a new one');
    }
    // Organization first, then the member: the order every member change takes, so none deadlock.
    if (!(await this.repository.lockOrganization(found.scope, 'share'))) throw invitationNotFound();
    const member = await this.lookups.invitationByTokenHash(tokenHash, true);
    if (!member) throw invitationNotFound();
    return {
      scope: member.scope,
      memberId: member.memberId,
      email: member.email,
      firstName: member.firstName,
      lastName: member.lastName,
    };
  }

  /** Second half: the membership becomes active for `user` and the token is spent. */
  async completeInvitation(
    invitation: OpenInvitation,
    user: { id: string; firstName: string | null; lastName: string | null },
  ): Promise<JoinedMemberView> {
    const now = this.clock.now();
    await this.repository.activateMember(invitation.scope, invitation.memberId, {
      userId: user.id,
      firstName: user.firstName,
      lastName: user.lastName,
      joinedAt: now,
      updatedAt: now,
    });
    const member = await this.repository.findMember(invitation.scope, invitation.memberId);
    if (!member?.userId || !member.joinedAt) throw invitationNotFound();
    await this.policy.record(invitation.scope, 'member.joined', member);
    return {
      id: member.id,
      userId: member.userId,
      email: member.email,
      role: member.role,
      status: 'active',
      joinedAt: member.joinedAt.toISOString(),
    };
  }
}

function memberExists(): AppError {
  return new AppError(ErrorCode.MEMBER_EXISTS, 'This email is already a member of or invited to this organization');
}

function invitationNotFound(): AppError {
  return new AppError(ErrorCode.INVITATION_NOT_FOUND, 'This invitation does not exist, was already used or was cancelled');
}
