import { Injectable } from '@nestjs/common';
import {
  AppError,
  canManageMember,
  Clock,
  ErrorCode,
  newId,
  PageRequest,
  pageMeta,
  Permission,
  Principal,
  Role,
  roleHas,
  tenantScope,
  type ScopedIds,
  type TenantScope,
} from '@app/common';
import { TransactionHost } from '@app/database';
import { GlobalLookups } from '../global-lookups/index.js';
import { MailOutbox } from '../mail/index.js';
import { DomainEvents } from '../outbox/index.js';
import {
  type BookingLimitsDto,
  ListMembersQueryDto,
  MemberListResponse,
  MemberRoleResponse,
  OrganizationResponse,
  UpdateMemberDto,
  UpdateOrganizationDto,
} from './dto/team.dto.js';
import { Member } from './entities/member.entity.js';
import { Organization } from './entities/organization.entity.js';
import { slugify } from './slug.js';
import { TeamPolicy } from './team-policy.service.js';
import { TeamRepository } from './team.repository.js';
import { memberView, organizationView } from './team-views.js';
import { AuditTrail, changesBetween } from '../audit/index.js';
import { DEFAULT_LOCALE } from '../../i18n/index.js';

/** Called inside the deleting transaction with the user ids the organization's members had. */
export type OrganizationDeletedListener = (scope: TenantScope, userIds: string[]) => Promise<void>;

/**
 * Called inside the removing transaction with the user id the removed member had (an active member's; an invitation
 * has none), after its row is gone: another module's part of the removal (a redirect to the member stops, § 17).
 */
export type MemberRemovedListener = (scope: TenantScope, userId: string) => Promise<void>;

/** The limits as stored: none at all (null, or neither limit) is null. */
function limitsOf(dto: BookingLimitsDto | null): Member['bookingLimits'] {
  const limits = { perDay: dto?.perDay ?? null, perWeek: dto?.perWeek ?? null };
  return limits.perDay === null && limits.perWeek === null ? null : limits;
}

/** Organizations and their members: registration's organization, names, roles, removal (invitations: InvitationsService). */
/**
 * A member as booking mails name and address it: its email, its first and last names joined (null without either), its
 * own locale and the organization's default (contract § 23).
 */
export interface MemberMailContact {
  email: string;
  name: string | null;
  locale: string | null;
  defaultLocale: string;
}

export function contactOf(member: {
  email: string;
  firstName: string | null;
  lastName: string | null;
  locale: string | null;
  defaultLocale: string;
}): MemberMailContact {
  return {
    email: member.email,
    name: [member.firstName, member.lastName].filter(Boolean).join(' ') || null,
    locale: member.locale,
    defaultLocale: member.defaultLocale,
  };
}

@Injectable()
export class TeamService {
  constructor(
    private readonly audit: AuditTrail,
    private readonly tx: TransactionHost,
    private readonly repository: TeamRepository,
    private readonly policy: TeamPolicy,
    private readonly lookups: GlobalLookups,
    private readonly mail: MailOutbox,
    private readonly events: DomainEvents,
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
    const organization = Object.assign(new Organization(), {
      id: newId('org'),
      name: input.name,
      slug,
      defaultLocale: DEFAULT_LOCALE,
      createdAt: now,
      updatedAt: now,
    });
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
      bookingLimits: null,
      locale: null,
      createdAt: now,
      updatedAt: now,
    } satisfies Member);
    await this.repository.insertMember(scope, member);
    return { organization, member, owner };
  }

  /** A user renamed itself: its membership shows the new names (the auth module owns users, this module members). */
  async syncProfileNames(principal: Principal, names: { firstName: string | null; lastName: string | null }): Promise<void> {
    await this.repository.updateNamesOfUser(tenantScope(principal), principal.userId, names);
  }

  /** The caller's own locale (`PATCH /users/me`, contract § 23), kept on its membership: mails are the organization's. */
  async setOwnLocale(principal: Principal, locale: string | null): Promise<void> {
    await this.repository.updateLocaleOfUser(tenantScope(principal), principal.userId, locale);
  }

  /** Email and display name of each user id that is a member here, for booking mails. */
  async contactsOf(scope: TenantScope, userIds: readonly string[]): Promise<Map<string, MemberMailContact>> {
    const members = await this.repository.contactsOf(scope, userIds);
    return new Map(members.filter((m) => m.userId !== null).map((m) => [m.userId as string, contactOf(m)]));
  }

  /** The same for several organizations at once (a job's round), in one statement: by organization id, then user id. */
  async contactsAcross(keys: readonly ScopedIds[]): Promise<Map<string, Map<string, MemberMailContact>>> {
    const byOrganization = new Map<string, Map<string, MemberMailContact>>();
    for (const m of await this.repository.contactsAcross(keys)) {
      if (m.userId === null) continue;
      const contacts = byOrganization.get(m.organizationId) ?? new Map<string, MemberMailContact>();
      contacts.set(m.userId, contactOf(m));
      byOrganization.set(m.organizationId, contacts);
    }
    return byOrganization;
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

  /**
   * Someone else's part of a member's removal, run in the removing transaction after the member's row is gone (as
   * onOrganizationDeleted: the team module cannot call its dependents). Registered once at start-up.
   */
  onMemberRemoved(listener: MemberRemovedListener): void {
    this.removalListeners.push(listener);
  }

  private readonly removalListeners: MemberRemovedListener[] = [];

  async showOrganization(principal: Principal, organizationId: string): Promise<OrganizationResponse> {
    const scope = this.policy.ownOrganization(principal, organizationId);
    return { organization: organizationView(await this.policy.organization(scope)) };
  }

  async updateOrganization(principal: Principal, organizationId: string, dto: UpdateOrganizationDto): Promise<OrganizationResponse> {
    const scope = this.policy.ownOrganization(principal, organizationId);
    const before = await this.policy.organization(scope);
    const changes = {
      ...(dto.name !== undefined ? { name: dto.name } : {}),
      ...(dto.defaultLocale ? { defaultLocale: dto.defaultLocale } : {}),
    };
    this.audit.describe({ changes: changesBetween(before, changes) });
    await this.tx.transaction(() => this.repository.updateOrganization(scope, { ...changes, updatedAt: this.clock.now() }));
    return { organization: organizationView(await this.policy.organization(scope)) };
  }

  async deleteOrganization(principal: Principal, organizationId: string): Promise<void> {
    const scope = this.policy.ownOrganization(principal, organizationId);
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
    const scope = this.policy.ownOrganization(principal, organizationId);
    const page: PageRequest = { page: query.page, limit: query.limit };
    const [members, total] = await this.repository.listMembers(scope, { status: query.status, role: query.role }, page);
    return { members: members.map(memberView), ...pageMeta(page, total) };
  }

  /** A member's role and/or booking limits (contract § 17), at least one of them. */
  async updateMember(principal: Principal, organizationId: string, memberId: string, dto: UpdateMemberDto): Promise<MemberRoleResponse> {
    const scope = this.policy.ownOrganization(principal, organizationId);
    if (dto.role === undefined && dto.bookingLimits === undefined) throw AppError.validation('role', 'Send role, bookingLimits or both');
    return this.tx.transaction(async () => {
      const member = await this.lockedMember(scope, memberId);
      const changes: Partial<Pick<Member, 'role' | 'bookingLimits'>> = {};
      // Permission before state, for every field of the member (contract § 4): an admin may not change an owner at all
      // (its role, its booking limits), whether or not it is the last one. Of two owners demoting each other, the
      // second is an admin by then and hears 403.
      if (!canManageMember(await this.policy.actingRole(principal), member.role, dto.role)) {
        throw AppError.forbidden('Only an owner may grant the owner role or change an owner');
      }
      if (dto.role !== undefined) {
        const role = dto.role;
        if (member.role === Role.Owner && role !== Role.Owner) await this.assertNotLastOwner(scope, member);
        changes.role = role;
      }
      if (dto.bookingLimits !== undefined) changes.bookingLimits = limitsOf(dto.bookingLimits);
      const now = this.clock.now();
      // `member.role_changed` (the route's action) when the role changes; a change of the limits alone is `member.updated`.
      this.audit.describe({
        changes: changesBetween(member, changes),
        ...(changes.role === undefined || changes.role === member.role ? { action: 'member.updated' } : {}),
      });
      await this.repository.updateMember(scope, member.id, changes, now);
      Object.assign(member, changes, { updatedAt: now });
      await this.policy.record(scope, 'member.updated', member);
      return { member: { id: member.id, role: member.role, bookingLimits: member.bookingLimits ?? null, updatedAt: now.toISOString() } };
    });
  }

  /** An invitation's token dies with its row; an active member's sessions end with it, its bookings stay, redirects to it stop. */
  async removeMember(principal: Principal, organizationId: string, memberId: string): Promise<void> {
    const scope = this.policy.ownOrganization(principal, organizationId);
    await this.tx.transaction(async () => {
      const member = await this.lockedMember(scope, memberId);
      if (!canManageMember(await this.policy.actingRole(principal), member.role)) {
        throw AppError.forbidden('Only an owner may remove an owner');
      }
      if (member.role === Role.Owner) await this.assertNotLastOwner(scope, member);
      await this.repository.deleteMember(scope, member.id);
      const { userId } = member;
      if (userId !== null) for (const listener of this.removalListeners) await listener(scope, userId);
      await this.policy.record(scope, 'member.removed', member);
    });
  }

  /**
   * A member made by the organization's identity provider or directory (contract § 21): active at once, no invitation,
   * in the caller's transaction. The caller has made (or found) the user; one organization per user stays the unique
   * index's to enforce.
   */
  async provisionMember(
    scope: TenantScope,
    input: { userId: string; email: string; firstName: string | null; lastName: string | null; role: Role },
  ): Promise<Member> {
    if (!(await this.repository.lockOrganization(scope, 'share'))) throw AppError.notFound('Organization');
    const now = this.clock.now();
    const member = Object.assign(new Member(), {
      id: newId('mem'),
      organizationId: scope.organizationId,
      userId: input.userId,
      email: input.email,
      firstName: input.firstName,
      lastName: input.lastName,
      role: input.role,
      status: 'active',
      invitationTokenHash: null,
      invitedAt: null,
      joinedAt: now,
      bookingLimits: null,
      // A provisioned person reads the organization's default until they choose (contract § 23).
      locale: null,
      createdAt: now,
      updatedAt: now,
    } satisfies Member);
    await this.repository.insertMember(scope, member);
    await this.policy.record(scope, 'member.joined', member);
    return member;
  }

  /**
   * The directory removed a person (contract § 21): as `removeMember` does for an active member (sessions end, it leaves
   * every event type's hosts, its bookings stay), without a caller's role to check. Returns the role it had, or null
   * when the user was no active member here. The last active owner stays (409 LAST_OWNER).
   */
  async deprovisionMember(scope: TenantScope, userId: string): Promise<Role | null> {
    if (!(await this.repository.lockOrganization(scope, 'exclusive'))) throw AppError.notFound('Organization');
    const member = await this.repository.findActiveMember(scope, userId);
    if (!member) return null;
    if (member.role === Role.Owner) await this.assertNotLastOwner(scope, member);
    await this.repository.deleteMember(scope, member.id);
    for (const listener of this.removalListeners) await listener(scope, userId);
    await this.policy.record(scope, 'member.removed', member);
    return member.role;
  }

  /** The active members, oldest first (a directory's listing, contract § 21). */
  async activeMembers(scope: TenantScope): Promise<Member[]> {
    return this.repository.listActiveMembers(scope);
  }

  /** The directory renamed a user: its membership here shows the new names. */
  async syncNamesOf(scope: TenantScope, userId: string, names: { firstName: string | null; lastName: string | null }): Promise<void> {
    await this.repository.updateNamesOfUser(scope, userId, names);
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

  private async assertNotLastOwner(scope: TenantScope, member: Member): Promise<void> {
    if (member.status !== 'active') return;
    if ((await this.repository.countActiveOwners(scope)) <= 1) {
      throw new AppError(ErrorCode.LAST_OWNER, 'An organization needs at least one active owner');
    }
  }
}
