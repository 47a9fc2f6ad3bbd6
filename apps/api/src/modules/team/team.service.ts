import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AppError, Clock, newId, Role } from '@app/common';
import { Member } from './entities/member.entity.js';
import { Organization } from './entities/organization.entity.js';
import { TeamRepository } from './team.repository.js';

export interface OrganizationView {
  id: string;
  name: string;
  slug: string;
  createdAt: string;
}

export function organizationView(organization: Organization): OrganizationView {
  return { id: organization.id, name: organization.name, slug: organization.slug, createdAt: organization.createdAt.toISOString() };
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

@Injectable()
export class TeamService {
  constructor(
    private readonly repository: TeamRepository,
    private readonly clock: Clock,
  ) {}

  /** Registration: a new organization whose first member is its active owner, in the caller's transaction. */
  async createOrganizationWithOwner(
    manager: EntityManager,
    input: { name: string; userId: string; email: string; firstName: string | null; lastName: string | null },
  ): Promise<{ organization: Organization; member: Member }> {
    const now = this.clock.now();
    const base = slugify(input.name);
    let slug = base;
    for (let n = 2; await this.repository.slugExists(slug, manager); n++) slug = `${base}-${n}`;
    const organization = Object.assign(new Organization(), { id: newId('org'), name: input.name, slug, createdAt: now, updatedAt: now });
    await this.repository.insertOrganization(organization, manager);
    const member = Object.assign(new Member(), {
      id: newId('mem'),
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
    await this.repository.insertMember(member, manager);
    return { organization, member };
  }

  async getOrganization(organizationId: string): Promise<Organization> {
    const organization = await this.repository.findOrganization(organizationId);
    if (!organization) throw AppError.notFound('Organization');
    return organization;
  }

  async findActiveMemberByUser(userId: string, manager?: EntityManager): Promise<Member | null> {
    return this.repository.findActiveMemberByUser(userId, manager);
  }
}
