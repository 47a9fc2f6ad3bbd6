import { Injectable } from '@nestjs/common';
import { AppConfig, AppError, Clock, ErrorCode, isUniqueViolation, Role, type TenantScope } from '@app/common';
import { TransactionHost } from '@app/database';
import { AuditTrail } from '../audit/index.js';
import { DirectoryUsers, type DirectoryUser } from '../auth/index.js';
import { GlobalLookups } from '../global-lookups/index.js';
import { TeamService } from '../team/index.js';
import { IdentityRepository } from './identity.repository.js';
import { ProvisioningService } from './provisioning.service.js';
import {
  parseUserNameFilter,
  SCIM_LIST,
  SCIM_MAX_RESULTS,
  SCIM_USER,
  ScimError,
  type ScimUserInput,
  type UserChanges,
} from './scim-protocol.js';

const SCIM_ACTOR = { type: 'scim', id: null, label: 'SCIM' } as const;

/** A person as the directory sees it here: active (a member) or deactivated (remembered in scim_users). */
interface ScimPerson {
  user: DirectoryUser;
  active: boolean;
  externalId: string | null;
  role: Role;
}

/** SCIM 2.0 Users (contract § 21): the organization's people as its directory creates, changes and removes them. */
@Injectable()
export class ScimService {
  constructor(
    private readonly tx: TransactionHost,
    private readonly repository: IdentityRepository,
    private readonly lookups: GlobalLookups,
    private readonly users: DirectoryUsers,
    private readonly team: TeamService,
    private readonly provisioning: ProvisioningService,
    private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly audit: AuditTrail,
  ) {}

  async list(scope: TenantScope, query: { filter?: string; startIndex?: string; count?: string }): Promise<Record<string, unknown>> {
    const startIndex = Math.max(1, intOf(query.startIndex, 1));
    const count = Math.min(SCIM_MAX_RESULTS, Math.max(0, intOf(query.count, SCIM_MAX_RESULTS)));
    let people: ScimPerson[];
    if (query.filter !== undefined) {
      const email = parseUserNameFilter(query.filter);
      const user = await this.users.findByEmail(email);
      const person = user ? await this.person(scope, user.id) : null;
      people = person ? [person] : [];
    } else {
      const members = await this.team.activeMembers(scope);
      const extra = await this.repository.scimUsersOf(scope, members.map((m) => m.userId!).filter(Boolean));
      const externalIds = new Map(extra.map((s) => [s.userId, s.externalId]));
      people = members
        .filter((m) => m.userId !== null)
        .map((m) => ({
          user: { id: m.userId!, email: m.email, firstName: m.firstName, lastName: m.lastName, timezone: 'UTC' },
          active: true,
          externalId: externalIds.get(m.userId!) ?? null,
          role: m.role,
        }));
      for (const inactive of await this.repository.inactiveScimUsers(scope)) {
        const user = await this.users.findById(inactive.userId);
        if (user) people.push({ user, active: false, externalId: inactive.externalId, role: inactive.role });
      }
    }
    const page = people.slice(startIndex - 1, startIndex - 1 + count);
    return {
      schemas: [SCIM_LIST],
      totalResults: people.length,
      startIndex,
      itemsPerPage: page.length,
      Resources: page.map((person) => this.view(person)),
    };
  }

  async get(scope: TenantScope, userId: string): Promise<Record<string, unknown>> {
    return this.view(await this.found(scope, userId));
  }

  async create(scope: TenantScope, input: ScimUserInput): Promise<Record<string, unknown>> {
    const role = ((await this.repository.findConnection(scope))?.defaultRole ?? Role.Member) as Role;
    try {
      const person = await this.tx.transaction(async () => {
        await this.tx.keepErrorDetailsOutOfLog();
        const existing = await this.users.findByEmail(input.userName);
        if (
          existing &&
          ((await this.lookups.activeMembershipOf(existing.id)) || (await this.repository.findScimUserForUpdate(scope, existing.id)))
        )
          throw new ScimError(409, 'A user with this userName exists', 'uniqueness');
        const names = { firstName: input.givenName, lastName: input.familyName };
        let user: DirectoryUser;
        if (existing) {
          await this.users.rename(existing.id, names);
          user = { ...existing, ...names };
        } else user = await this.users.create({ email: input.userName, ...names });
        this.audit.describe({ actor: SCIM_ACTOR, resourceId: user.id, details: { active: input.active } });
        if (input.active) await this.provisioning.provision(scope, user, role);
        await this.repository.saveScimUser(scope, {
          organizationId: scope.organizationId,
          userId: user.id,
          externalId: input.externalId,
          active: input.active,
          role,
          updatedAt: this.clock.now(),
        });
        return { user, active: input.active, externalId: input.externalId, role };
      });
      return this.view(person);
    } catch (error) {
      if (
        isUniqueViolation(error, 'users_email_key') ||
        isUniqueViolation(error, 'members_user_id_key') ||
        isUniqueViolation(error, 'PK_scim_users') ||
        isUniqueViolation(error, 'members_organization_email_key')
      )
        throw new ScimError(409, 'A user with this userName exists', 'uniqueness');
      throw error;
    }
  }

  /** PUT: the whole user; userName must stay the email it is. */
  async replace(scope: TenantScope, userId: string, input: ScimUserInput): Promise<Record<string, unknown>> {
    const person = await this.found(scope, userId);
    if (input.userName !== person.user.email) throw new ScimError(400, 'userName cannot be changed', 'mutability');
    return this.change(scope, userId, {
      active: input.active,
      givenName: input.givenName,
      familyName: input.familyName,
      externalId: input.externalId,
    });
  }

  /** PATCH's changes, and PUT's: names, externalId, and `active` (false removes the membership at once, true restores it). */
  async change(scope: TenantScope, userId: string, changes: UserChanges): Promise<Record<string, unknown>> {
    const result = await this.tx.transaction(async () => {
      const person = await this.found(scope, userId, true);
      this.audit.describe({ actor: SCIM_ACTOR, resourceId: userId });
      const names = {
        firstName: changes.givenName !== undefined ? changes.givenName : person.user.firstName,
        lastName: changes.familyName !== undefined ? changes.familyName : person.user.lastName,
      };
      if (names.firstName !== person.user.firstName || names.lastName !== person.user.lastName) {
        await this.users.rename(userId, names);
        if (person.active) await this.team.syncNamesOf(scope, userId, names);
      }
      const user = { ...person.user, ...names };
      const externalId = changes.externalId !== undefined ? changes.externalId : person.externalId;
      const active = changes.active ?? person.active;
      let role = person.role;
      if (person.active && !active) {
        this.audit.describe({ action: 'member.deprovisioned' });
        role = (await this.deprovision(scope, userId)) ?? role;
      } else if (!person.active && active) {
        this.audit.describe({ action: 'member.provisioned' });
        const membership = await this.lookups.activeMembershipOf(userId);
        if (membership) throw new ScimError(409, 'This user is a member of another organization now', 'uniqueness');
        await this.provisioning.provision(scope, user, person.role);
      }
      await this.repository.saveScimUser(scope, {
        organizationId: scope.organizationId,
        userId,
        externalId,
        active,
        role,
        updatedAt: this.clock.now(),
      });
      return { user, active, externalId, role };
    });
    return this.view(result);
  }

  async remove(scope: TenantScope, userId: string): Promise<void> {
    await this.tx.transaction(async () => {
      const person = await this.found(scope, userId, true);
      this.audit.describe({ actor: SCIM_ACTOR, resourceId: userId });
      if (person.active) await this.deprovision(scope, userId);
      await this.repository.deleteScimUser(scope, userId);
    });
  }

  private async deprovision(scope: TenantScope, userId: string): Promise<Role | null> {
    try {
      return await this.team.deprovisionMember(scope, userId);
    } catch (error) {
      if (error instanceof AppError && error.code === ErrorCode.LAST_OWNER)
        throw new ScimError(409, 'The organization’s last owner cannot be removed by the directory', 'mutability');
      throw error;
    }
  }

  private async found(scope: TenantScope, userId: string, forUpdate = false): Promise<ScimPerson> {
    const person = /^usr_[0-9A-Za-z]{1,64}$/.test(userId) ? await this.person(scope, userId, forUpdate) : null;
    if (!person) throw new ScimError(404, `User ${userId} not found`);
    return person;
  }

  private async person(scope: TenantScope, userId: string, forUpdate = false): Promise<ScimPerson | null> {
    const user = await this.users.findById(userId);
    if (!user) return null;
    const scim = forUpdate ? await this.repository.findScimUserForUpdate(scope, userId) : await this.repository.findScimUser(scope, userId);
    const member = await this.team.findActiveMember(scope, userId);
    if (member)
      return {
        user: { ...user, firstName: member.firstName, lastName: member.lastName },
        active: true,
        externalId: scim?.externalId ?? null,
        role: member.role,
      };
    if (scim && !scim.active) return { user, active: false, externalId: scim.externalId, role: scim.role };
    return null;
  }

  private view(person: ScimPerson): Record<string, unknown> {
    const { user } = person;
    return {
      schemas: [SCIM_USER],
      id: user.id,
      ...(person.externalId !== null ? { externalId: person.externalId } : {}),
      userName: user.email,
      name: {
        ...(user.firstName !== null ? { givenName: user.firstName } : {}),
        ...(user.lastName !== null ? { familyName: user.lastName } : {}),
      },
      displayName: [user.firstName, user.lastName].filter(Boolean).join(' ') || user.email,
      emails: [{ value: user.email, type: 'work', primary: true }],
      active: person.active,
      meta: { resourceType: 'User', location: `${this.config.publicUrl}/scim/v2/Users/${user.id}` },
    };
  }
}

function intOf(raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  if (!/^-?\d{1,9}$/.test(raw)) throw new ScimError(400, 'startIndex and count must be integers', 'invalidValue');
  return Number(raw);
}
