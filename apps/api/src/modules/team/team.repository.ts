import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { Member } from './entities/member.entity.js';
import { Organization } from './entities/organization.entity.js';

/** The only place that touches TypeORM for organizations and members; every read is scoped by organization. */
@Injectable()
export class TeamRepository {
  constructor(private readonly dataSource: DataSource) {}

  private manager(manager?: EntityManager): EntityManager {
    return manager ?? this.dataSource.manager;
  }

  async slugExists(slug: string, manager?: EntityManager): Promise<boolean> {
    return this.manager(manager).exists(Organization, { where: { slug } });
  }

  async insertOrganization(organization: Organization, manager?: EntityManager): Promise<void> {
    await this.manager(manager).insert(Organization, organization);
  }

  async insertMember(member: Member, manager?: EntityManager): Promise<void> {
    await this.manager(manager).insert(Member, member);
  }

  async findOrganization(organizationId: string, manager?: EntityManager): Promise<Organization | null> {
    return this.manager(manager).findOne(Organization, { where: { id: organizationId } });
  }

  async findActiveMemberByUser(userId: string, manager?: EntityManager): Promise<Member | null> {
    return this.manager(manager).findOne(Member, { where: { userId, status: 'active' } });
  }
}
