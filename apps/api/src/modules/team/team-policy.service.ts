import { Injectable } from '@nestjs/common';
import { AppError, liveScopeOf, Permission, type Principal, Role, roleHas, tenantScope, type TenantScope } from '@app/common';
import { DomainEvents, type DomainEventType } from '../outbox/index.js';
import type { Member } from './entities/member.entity.js';
import type { Organization } from './entities/organization.entity.js';
import { TeamRepository } from './team.repository.js';
import { memberView } from './team-views.js';

/** What the team's services share: whose organization a call is about, the caller's role now, member events. */
@Injectable()
export class TeamPolicy {
  constructor(
    private readonly repository: TeamRepository,
    private readonly events: DomainEvents,
  ) {}

  async organization(scope: TenantScope): Promise<Organization> {
    const organization = await this.repository.findOrganization(scope);
    if (!organization) throw AppError.notFound('Organization');
    return organization;
  }

  /** The caller's scope; other organizations' ids get the same 404 as ids that do not exist. */
  ownOrganization(principal: Principal, organizationId: string): TenantScope {
    if (principal.organizationId !== organizationId) throw AppError.notFound('Organization');
    return tenantScope(principal);
  }

  /**
   * The caller's role as the database has it now, not as the guard read it before the lock: an owner
   * demoted a moment ago acts as what it is now. API keys act for the organization within their scopes
   * but hold no role; for members they get an admin's reach, so a leaked team:write key can neither
   * mint owners nor lock the owners out.
   */
  async actingRole(principal: Principal): Promise<Role> {
    if (principal.type !== 'user' || !principal.memberId) return Role.Admin;
    const actor = await this.repository.findMember(tenantScope(principal), principal.memberId);
    if (actor?.status !== 'active') throw AppError.unauthorized('The session has ended');
    if (!roleHas(actor.role, Permission.ManageMembers)) throw AppError.forbidden(`The ${actor.role} role may not do this`);
    return actor.role;
  }

  /** Member events are live-mode events: members are not mode-specific data. */
  async record(scope: TenantScope, type: DomainEventType, member: Member): Promise<void> {
    await this.events.record(liveScopeOf(scope), { type, data: { member: memberView(member) } });
  }
}
