import { Injectable } from '@nestjs/common';
import {
  AppConfig,
  AppError,
  canManageMember,
  Clock,
  ErrorCode,
  newId,
  PageRequest,
  pageMeta,
  Permission,
  Principal,
  randomBase62,
  Role,
  roleHas,
  isUniqueViolation,
  liveScopeOf,
  sha256,
  tenantScope,
  type TenantScope,
} from '@app/common';
import { GlobalLookups } from '../global-lookups/index.js';
import { MailOutbox } from '../mail/index.js';
import { DomainEvents, type DomainEventType } from '../outbox/domain-events.js';
import {
  InvitedMemberResponse,
  InviteMemberDto,
  JoinedMemberView,
  ListMembersQueryDto,
  MemberListResponse,
  MemberRoleResponse,
  MemberView,
  OrganizationResponse,
  OrganizationView,
  UpdateOrganizationDto,
} from './dto/team.dto.js';
import { Member } from './entities/member.entity.js';
import { Organization } from './entities/organization.entity.js';
import { invitationMail } from './invitation-mail.js';
import { TeamRepository } from './team.repository.js';
import { TransactionHost } from '@app/database';

/** Called inside the deleting transaction with the user ids the organization's members had. */
export type OrganizationDeletedListener = (scope: TenantScope, userIds: string[]) => Promise<void>;

export const INVITATION_TTL_MS = 7 * 24 * 3600 * 1000;

export function organizationView(organization: Organization): OrganizationView {
  return { id: organization.id, name: organization.name, slug: organization.slug, createdAt: organization.createdAt.toISOString() };
}

/** What GET shows and member.* events carry. An active member's names follow its user's profile (syncProfileNames). */
export function memberView(member: Member): MemberView {
  const view: MemberView = {
    id: member.id,
    email: member.email,
    firstName: member.firstName,
    lastName: member.lastName,
    role: member.role,
    status: member.status,
    updatedAt: member.updatedAt.toISOString(),
  };
  if (member.status === 'active') {
    if (member.userId) view.userId = member.userId;
    if (member.joinedAt) view.joinedAt = member.joinedAt.toISOString();
  } else if (member.invitedAt) {
    view.invitedAt = member.invitedAt.toISOString();
  }
  return view;
}

export function slugify(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/g, '');
  return slug || 'org';
}

/** A pending invitation, opened for acceptance: its rows stay locked until the caller's transaction ends. */
export interface OpenInvitation {
  scope: TenantScope;
  memberId: string;
  email: string;
  firstName: string | null;
  lastName: string | null;
}

@Injectable()
export class TeamService {
  constructor(
    private readonly tx: TransactionHost,
    private readonly repository: TeamRepository,
    private readonly lookups: GlobalLookups,
    private readonly mail: MailOutbox,
    private readonly events: DomainEvents,
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  /**
   * Registration: a new organization whose first member is its active owner, in the caller's transaction.
   * Returns the owner's principal too: the scope everything else of the registration is written in.
   */
  async createOrganizationWithOwner(input: {
    name: string;
    userId: string;
    email: string;
    firstName: string | null;
    lastName: string | null;
  }): Promise<{ organization: Organization; member: Member; owner: Principal }> {
    const now = this.clock.now();
    const base = slugify(input.name);
    let slug = base;
    for (let n = 2; await this.lookups.organizationSlugTaken(slug); n++) slug = `${base}-${n}`;
    const organization = Object.assign(new Organization(), { id: newId('org'), name: input.name, slug, createdAt: now, updatedAt: now });
    const owner: Principal = {
      type: 'user',
      organizationId: organization.id,
      userId: input.userId,
      memberId: newId('mem'),
      role: Role.Owner,
      livemode: true,
    };
    const scope = tenantScope(owner);
    await this.repository.insertOrganization(scope, organization);
    const member = Object.assign(new Member(), {
      id: owner.memberId!,
      organizationId: organization.id,
      userId: input.userId,
      email: input.email,
      firstName: input.firstName,
      lastName: input.lastName,
      role: Role.Owner,
      status: 'active',
      invitationTokenHash: null,
      invitedAt: null,
      joinedAt: now,
      createdAt: now,
      updatedAt: now,
    } satisfies Member);
    await this.repository.insertMember(scope, member);
    return { organization, member, owner };
  }

  private async getOrganization(scope: TenantScope): Promise<Organization> {
    const organization = await this.repository.findOrganization(scope);
    if (!organization) throw AppError.notFound('Organization');
    return organization;
  }

  /** A user renamed itself: its membership shows the new names (the auth module owns users, this module members). */
  async syncProfileNames(principal: Principal, names: { firstName: string | null; lastName: string | null }): Promise<void> {
    await this.repository.updateNamesOfUser(tenantScope(principal), principal.userId, names);
  }

  /** Email and display name of each user id that is a member here, for booking mails. */
  async contactsOf(scope: TenantScope, userIds: readonly string[]): Promise<Map<string, { email: string; name: string | null }>> {
    const members = await this.repository.contactsOf(scope, userIds);
    return new Map(
      members
        .filter((m) => m.userId !== null)
        .map((m) => [m.userId as string, { email: m.email, name: [m.firstName, m.lastName].filter(Boolean).join(' ') || null }]),
    );
  }

  /** The membership ids of those of `userIds` that are active members here, by user id. */
  async activeMemberIdsOf(scope: TenantScope, userIds: readonly string[]): Promise<Map<string, string>> {
    const members = await this.repository.contactsOf(scope, userIds);
    return new Map(members.filter((m) => m.status === 'active' && m.userId !== null).map((m) => [m.userId!, m.id]));
  }

  /** The active member that `userId` is in this organization, or null. */
  async findActiveMember(scope: TenantScope, userId: string): Promise<Member | null> {
    return this.repository.findActiveMember(scope, userId);
  }

  /**
   * Someone else's part of an organization's deletion (the auth module deletes the members' users), run
   * in the deleting transaction after the organization is gone. Registered once at start-up; the team
   * module cannot call its dependents directly.
   */
  onOrganizationDeleted(listener: OrganizationDeletedListener): void {
    this.deletionListeners.push(listener);
  }

  private readonly deletionListeners: OrganizationDeletedListener[] = [];

  async showOrganization(principal: Principal, organizationId: string): Promise<OrganizationResponse> {
    const scope = this.ownOrganization(principal, organizationId);
    return { organization: organizationView(await this.getOrganization(scope)) };
  }

  async updateOrganization(principal: Principal, organizationId: string, dto: UpdateOrganizationDto): Promise<OrganizationResponse> {
    const scope = this.ownOrganization(principal, organizationId);
    await this.repository.updateOrganization(scope, { name: dto.name, updatedAt: this.clock.now() });
    return { organization: organizationView(await this.getOrganization(scope)) };
  }

  async deleteOrganization(principal: Principal, organizationId: string): Promise<void> {
    const scope = this.ownOrganization(principal, organizationId);
    await this.tx.transaction(async () => {
      if (!(await this.repository.lockOrganization(scope, 'delete'))) throw AppError.notFound('Organization');
      // The guard read the caller's role before the lock; an owner demoted or removed meanwhile is no longer one.
      const actor = principal.memberId ? await this.repository.findMember(scope, principal.memberId) : null;
      if (actor?.status !== 'active') throw AppError.unauthorized('The session has ended');
      if (!roleHas(actor.role, Permission.DeleteOrganization)) throw AppError.forbidden(`The ${actor.role} role may not do this`);
      // The outboxes carry the organization's id without a foreign key: their owners clear them in this transaction.
      await this.events.deleteOfOrganization(scope);
      await this.mail.deleteOfOrganization(scope);
      const userIds = await this.repository.deleteOrganization(scope);
      for (const listener of this.deletionListeners) await listener(scope, userIds);
    });
  }

  async listMembers(principal: Principal, organizationId: string, query: ListMembersQueryDto): Promise<MemberListResponse> {
    const scope = this.ownOrganization(principal, organizationId);
    const page: PageRequest = { page: query.page, limit: query.limit };
    const [members, total] = await this.repository.listMembers(scope, { status: query.status, role: query.role }, page);
    return { members: members.map(memberView), ...pageMeta(page, total) };
  }

  async invite(principal: Principal, organizationId: string, dto: InviteMemberDto): Promise<InvitedMemberResponse> {
    const scope = this.ownOrganization(principal, organizationId);
    const email = dto.email.toLowerCase();
    const token = randomBase62(43);
    try {
      return await this.tx.transaction(async () => {
        if (!(await this.repository.lockOrganization(scope, 'share'))) throw AppError.notFound('Organization');
        const actor = await this.actingRole(principal);
        if (!canManageMember(actor, dto.role, dto.role)) throw AppError.forbidden('Only an owner may invite an owner');
        if (await this.repository.memberEmailExists(scope, email)) throw memberExists();
        if (await this.lookups.activeMemberElsewhere(scope, email)) {
          throw new AppError(ErrorCode.EMAIL_TAKEN, 'This email belongs to a member of another organization');
        }
        const organization = await this.getOrganization(scope);
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
          createdAt: now,
          updatedAt: now,
        } satisfies Member);
        await this.repository.insertMember(scope, member);
        await this.mail.enqueue(
          scope,
          invitationMail({
            to: email,
            organizationName: organization.name,
            role: member.role,
            acceptUrl: `${this.config.appUrl}/invitations/accept?token=${token}`,
            expiresAt: new Date(now.getTime() + INVITATION_TTL_MS),
          }),
        );
        await this.record(scope, 'member.invited', member);
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

  async changeRole(principal: Principal, organizationId: string, memberId: string, role: Role): Promise<MemberRoleResponse> {
    const scope = this.ownOrganization(principal, organizationId);
    return this.tx.transaction(async () => {
      const member = await this.lockedMember(scope, memberId);
      // Permission before state: an admin may not touch an owner at all, whether or not it is the last one.
      // Of two owners demoting each other, the second is an admin by then and hears 403.
      if (!canManageMember(await this.actingRole(principal), member.role, role)) {
        throw AppError.forbidden('Only an owner may grant the owner role or change an owner');
      }
      if (member.role === Role.Owner && role !== Role.Owner) await this.assertNotLastOwner(scope, member);
      const now = this.clock.now();
      await this.repository.updateMemberRole(scope, member.id, role, now);
      Object.assign(member, { role, updatedAt: now });
      await this.record(scope, 'member.updated', member);
      return { member: { id: member.id, role, updatedAt: now.toISOString() } };
    });
  }

  /** An invitation's token dies with its row; an active member's sessions end with it, its bookings stay. */
  async removeMember(principal: Principal, organizationId: string, memberId: string): Promise<void> {
    const scope = this.ownOrganization(principal, organizationId);
    await this.tx.transaction(async () => {
      const member = await this.lockedMember(scope, memberId);
      if (!canManageMember(await this.actingRole(principal), member.role)) {
        throw AppError.forbidden('Only an owner may remove an owner');
      }
      if (member.role === Role.Owner) await this.assertNotLastOwner(scope, member);
      await this.repository.deleteMember(scope, member.id);
      await this.record(scope, 'member.removed', member);
    });
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
    await this.record(invitation.scope, 'member.joined', member);
    return {
      id: member.id,
      userId: member.userId,
      email: member.email,
      role: member.role,
      status: 'active',
      joinedAt: member.joinedAt.toISOString(),
    };
  }

  /** The caller's scope; other organizations' ids get the same 404 as ids that do not exist. */
  private ownOrganization(principal: Principal, organizationId: string): TenantScope {
    if (principal.organizationId !== organizationId) throw AppError.notFound('Organization');
    return tenantScope(principal);
  }

  /**
   * The organization's row lock comes before the member is read, so concurrent role changes and
   * removals in one organization run one after another and each counts owners after the last one committed.
   */
  private async lockedMember(scope: TenantScope, memberId: string): Promise<Member> {
    if (!(await this.repository.lockOrganization(scope, 'exclusive'))) throw AppError.notFound('Organization');
    const member = await this.repository.findMember(scope, memberId);
    if (!member) throw AppError.notFound('Member');
    return member;
  }

  /**
   * The caller's role as the database has it now, not as the guard read it before the lock: an owner
   * demoted a moment ago acts as what it is now. API keys act for the organization within their scopes
   * but hold no role; for members they get an admin's reach, so a leaked team:write key can neither
   * mint owners nor lock the owners out.
   */
  private async actingRole(principal: Principal): Promise<Role> {
    if (principal.type === 'api_key' || !principal.memberId) return Role.Admin;
    const actor = await this.repository.findMember(tenantScope(principal), principal.memberId);
    if (actor?.status !== 'active') throw AppError.unauthorized('The session has ended');
    if (!roleHas(actor.role, Permission.ManageMembers)) throw AppError.forbidden(`The ${actor.role} role may not do this`);
    return actor.role;
  }

  private async assertNotLastOwner(scope: TenantScope, member: Member): Promise<void> {
    if (member.status !== 'active') return;
    if ((await this.repository.countActiveOwners(scope)) <= 1) {
      throw new AppError(ErrorCode.LAST_OWNER, 'An organization needs at least one active owner');
    }
  }

  /** Member events are live-mode events: members are not mode-specific data. */
  private async record(scope: TenantScope, type: DomainEventType, member: Member): Promise<void> {
    await this.events.record(liveScopeOf(scope), { type, data: { member: memberView(member) } });
  }
}

function memberExists(): AppError {
  return new AppError(ErrorCode.MEMBER_EXISTS, 'This email is already a member of or invited to this organization');
}

function invitationNotFound(): AppError {
  return new AppError(ErrorCode.INVITATION_NOT_FOUND, 'This invitation does not exist, was already used or was cancelled');
}
