import { Injectable } from '@nestjs/common';
import { PageRequest, pageOffset, Role, type ScopedIds, scopedColumns, type TenantScope } from '@app/common';
import { Member, MemberStatus } from './entities/member.entity.js';
import { Organization } from './entities/organization.entity.js';
import { TransactionHost } from '@app/database';

/** What mails and host checks need of a member. */
export type MemberContact = Pick<Member, 'id' | 'userId' | 'email' | 'firstName' | 'lastName' | 'status' | 'locale'> & {
  /** The organization's `defaultLocale`, read with the member (contract § 23). */
  defaultLocale: string;
};

export interface MemberFilter {
  status?: MemberStatus;
  role?: Role;
}

/**
 * How a transaction holds its organization row. `share` (FOR KEY SHARE) only keeps the organization
 * from being deleted underneath; `exclusive` (FOR NO KEY UPDATE) also serializes the member changes
 * that count owners; `delete` (FOR UPDATE) waits for everyone. Only `delete` blocks inserts of rows
 * that merely reference the organization.
 */
export type OrganizationLock = 'share' | 'exclusive' | 'delete';

const LOCK_CLAUSES: Record<OrganizationLock, string> = { share: 'FOR KEY SHARE', exclusive: 'FOR NO KEY UPDATE', delete: 'FOR UPDATE' };

/** The only place that touches TypeORM for organizations and members; every read is scoped by organization. */
@Injectable()
export class TeamRepository {
  constructor(private readonly tx: TransactionHost) {}

  async insertOrganization(scope: TenantScope, organization: Organization): Promise<void> {
    await this.tx.transactional.insert(Organization, { ...organization, id: scope.organizationId });
  }

  async findOrganization(scope: TenantScope): Promise<Organization | null> {
    return this.tx.reads.findOne(Organization, { where: { id: scope.organizationId } });
  }

  /** Takes the organization's row lock for the rest of the transaction; false when the organization is gone. */
  async lockOrganization(scope: TenantScope, lock: OrganizationLock): Promise<boolean> {
    const rows: unknown[] = await this.tx.transactional.query(`SELECT id FROM organizations WHERE id = $1 ${LOCK_CLAUSES[lock]}`, [
      scope.organizationId,
    ]);
    return rows.length > 0;
  }

  async updateOrganization(
    scope: TenantScope,
    changes: Partial<Pick<Organization, 'name' | 'defaultLocale'>> & Pick<Organization, 'updatedAt'>,
  ): Promise<void> {
    await this.tx.transactional.update(Organization, { id: scope.organizationId }, changes);
  }

  /**
   * Removes the organization and everything it owns. Rows that reference the organization go by
   * ON DELETE CASCADE (the outboxes, which have no foreign key, are cleared by their owners first).
   * Returns the user ids its members had, now members of nothing (a user has at most one membership).
   * Call with the organization locked (`delete`).
   */
  async deleteOrganization(scope: TenantScope): Promise<string[]> {
    const users: { user_id: string }[] = await this.tx.transactional.query(
      `SELECT user_id FROM members WHERE organization_id = $1 AND user_id IS NOT NULL`,
      [scope.organizationId],
    );
    await this.tx.transactional.query(`DELETE FROM organizations WHERE id = $1`, [scope.organizationId]);
    return users.map((row) => row.user_id);
  }

  async insertMember(scope: TenantScope, member: Member): Promise<void> {
    await this.tx.transactional.insert(Member, { ...member, organizationId: scope.organizationId });
  }

  /** The member; an active member's names are kept equal to its user's (updateNamesOfUser). */
  async findMember(scope: TenantScope, memberId: string): Promise<Member | null> {
    return this.tx.reads.findOne(Member, { where: { organizationId: scope.organizationId, id: memberId } });
  }

  async listMembers(scope: TenantScope, filter: MemberFilter, page: PageRequest): Promise<[Member[], number]> {
    const query = this.tx.reads
      .createQueryBuilder(Member, 'm')
      .where('m.organizationId = :organizationId', { organizationId: scope.organizationId });
    if (filter.status) query.andWhere('m.status = :status', { status: filter.status });
    if (filter.role) query.andWhere('m.role = :role', { role: filter.role });
    return query.orderBy('m.createdAt', 'ASC').addOrderBy('m.id', 'ASC').skip(pageOffset(page)).take(page.limit).getManyAndCount();
  }

  async listActiveMembers(scope: TenantScope): Promise<Member[]> {
    return this.tx.reads.find(Member, {
      where: { organizationId: scope.organizationId, status: 'active' },
      order: { createdAt: 'ASC', id: 'ASC' },
    });
  }

  async memberEmailExists(scope: TenantScope, email: string): Promise<boolean> {
    return this.tx.reads.exists(Member, { where: { organizationId: scope.organizationId, email } });
  }

  async countActiveOwners(scope: TenantScope): Promise<number> {
    return this.tx.transactional.count(Member, { where: { organizationId: scope.organizationId, status: 'active', role: 'owner' } });
  }

  async updateMember(
    scope: TenantScope,
    memberId: string,
    changes: Partial<Pick<Member, 'role' | 'bookingLimits'>>,
    at: Date,
  ): Promise<void> {
    await this.tx.transactional.update(Member, { organizationId: scope.organizationId, id: memberId }, { ...changes, updatedAt: at });
  }

  /** Its sessions go with it (sessions.member_id cascades), so a removed member is signed out at once. */
  async deleteMember(scope: TenantScope, memberId: string): Promise<void> {
    await this.tx.transactional.delete(Member, { organizationId: scope.organizationId, id: memberId });
  }

  async activateMember(
    scope: TenantScope,
    memberId: string,
    changes: Pick<Member, 'userId' | 'firstName' | 'lastName' | 'joinedAt' | 'updatedAt'>,
  ): Promise<void> {
    await this.tx.transactional.update(
      Member,
      { organizationId: scope.organizationId, id: memberId, status: 'invited' },
      { ...changes, status: 'active', invitationTokenHash: null },
    );
  }

  /** The same for several organizations at once (a job's round), in one statement, each with its organization. */
  async contactsAcross(keys: readonly ScopedIds[]): Promise<(MemberContact & { organizationId: string })[]> {
    const { organizationIds, ids } = scopedColumns(keys);
    if (ids.length === 0) return [];
    const rows: {
      organization_id: string;
      id: string;
      user_id: string | null;
      email: string;
      first_name: string | null;
      last_name: string | null;
      status: MemberStatus;
      locale: string | null;
      default_locale: string;
    }[] = await this.tx.reads.query(
      `SELECT m.organization_id, m.id, m.user_id, m.email, m.first_name, m.last_name, m.status, m.locale, o.default_locale
         FROM members m JOIN organizations o ON o.id = m.organization_id
        WHERE (m.organization_id, m.user_id) IN (SELECT * FROM unnest($1::text[], $2::text[]))`,
      [organizationIds, ids],
    );
    return rows.map((row) => ({
      organizationId: row.organization_id,
      id: row.id,
      userId: row.user_id,
      email: row.email,
      firstName: row.first_name,
      lastName: row.last_name,
      status: row.status,
      locale: row.locale,
      defaultLocale: row.default_locale,
    }));
  }

  /** Names and emails of members by user id (mail recipients); users without a membership here are left out. */
  async contactsOf(scope: TenantScope, userIds: readonly string[]): Promise<MemberContact[]> {
    if (userIds.length === 0) return [];
    // Prepared: every booking's mails ask this inside its transaction.
    const rows = await this.tx.prepared<{
      id: string;
      user_id: string | null;
      email: string;
      first_name: string | null;
      last_name: string | null;
      status: MemberStatus;
      locale: string | null;
      default_locale: string;
    }>(
      'member-contacts',
      `SELECT m.id, m.user_id, m.email, m.first_name, m.last_name, m.status, m.locale, o.default_locale
         FROM members m JOIN organizations o ON o.id = m.organization_id
        WHERE m.organization_id = $1 AND m.user_id = ANY($2::text[])`,
      [scope.organizationId, [...userIds]],
    );
    return rows.map((row) => ({
      id: row.id,
      userId: row.user_id,
      email: row.email,
      firstName: row.first_name,
      lastName: row.last_name,
      status: row.status,
      locale: row.locale,
      defaultLocale: row.default_locale,
    }));
  }

  async findActiveMember(scope: TenantScope, userId: string): Promise<Member | null> {
    return this.tx.reads.findOne(Member, { where: { organizationId: scope.organizationId, userId, status: 'active' } });
  }

  /** The member's own locale for its mails (contract § 23); null: the organization's default. */
  async updateLocaleOfUser(scope: TenantScope, userId: string, locale: string | null): Promise<void> {
    await this.tx.transactional.update(Member, { organizationId: scope.organizationId, userId }, { locale });
  }

  async updateNamesOfUser(scope: TenantScope, userId: string, names: { firstName: string | null; lastName: string | null }): Promise<void> {
    await this.tx.transactional.update(Member, { organizationId: scope.organizationId, userId }, names);
  }
}
