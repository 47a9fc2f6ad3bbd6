import { Injectable } from '@nestjs/common';
import { AppError, Clock, type KeyActor, Principal, tenantScope } from '@app/common';
import { TransactionHost } from '@app/database';
import { AuditTrail, changesBetween } from '../audit/index.js';
import { TeamService } from '../team/index.js';
import { AuthRepository } from './auth.repository.js';
import { MeResponse, UpdateMeDto, UserView } from './dto/auth.dto.js';
import { User } from './entities/user.entity.js';
import { MeReadModel, type MeRow } from './me.read-model.js';

/** `locale`: the member's own (kept on its membership, contract § 23); a new user has none. */
export function userView(user: User, locale: string | null = null): UserView {
  return {
    id: user.id,
    email: user.email,
    firstName: user.firstName,
    lastName: user.lastName,
    timezone: user.timezone,
    locale,
    createdAt: user.createdAt.toISOString(),
  };
}

/** The caller's own user (`/users/me`), and the users an organization's deletion leaves behind. */
@Injectable()
export class UsersService {
  constructor(
    private readonly tx: TransactionHost,
    private readonly repository: AuthRepository,
    private readonly meReadModel: MeReadModel,
    private readonly team: TeamService,
    private readonly clock: Clock,
    private readonly audit: AuditTrail,
  ) {
    // A deleted organization's members' users are members of nothing any more (one organization per user).
    team.onOrganizationDeleted((_scope, userIds) => this.repository.deleteUsers(userIds));
  }

  async me(principal: Principal): Promise<MeResponse> {
    if (principal.app) {
      // A partner app acts for the organization, not as a person (contract § 20).
      const { app } = principal;
      return {
        user: null,
        organization: {
          id: principal.organizationId,
          name: app.organization.name,
          slug: app.organization.slug,
          defaultLocale: app.organization.defaultLocale,
        },
        member: null,
        app: { id: app.id, name: app.name },
        scopes: app.scopes,
      };
    }
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
        locale: row.locale,
        createdAt: row.created_at.toISOString(),
      },
      organization: {
        id: row.organization_id,
        name: row.organization_name,
        slug: row.organization_slug,
        defaultLocale: row.organization_default_locale,
      },
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
      const member = await this.team.findActiveMember(tenantScope(principal), principal.userId);
      if (before) {
        const locale = dto.locale !== undefined ? { locale: dto.locale } : {};
        this.audit.describe({ changes: changesBetween({ ...before, locale: member?.locale ?? null }, { ...changes, ...locale }) });
      }
      await this.repository.updateUser(principal.userId, changes);
      const user = await this.repository.findUser(principal.userId);
      if (!user) throw AppError.unauthorized();
      if (dto.firstName !== undefined || dto.lastName !== undefined) {
        await this.team.syncProfileNames(principal, { firstName: user.firstName, lastName: user.lastName });
      }
      if (dto.locale !== undefined) await this.team.setOwnLocale(principal, dto.locale);
      return { user: userView(user, dto.locale !== undefined ? dto.locale : (member?.locale ?? null)) };
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
    locale: actor.locale,
    created_at: actor.createdAt,
    organization_id: principal.organizationId,
    organization_name: actor.organizationName,
    organization_slug: actor.organizationSlug,
    organization_default_locale: actor.organizationDefaultLocale,
    member_id: actor.memberId,
  };
}
