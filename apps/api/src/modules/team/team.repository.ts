import { Injectable } from '@nestjs/common';
import { In, Not } from 'typeorm';
import { PageRequest, pageOffset, Role } from '@app/common';
import { Member, MemberStatus } from './entities/member.entity.js';
import { Organization } from './entities/organization.entity.js';
import { TransactionHost } from '@app/database';

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

  async slugExists(slug: string): Promise<boolean> {
    return this.tx.manager.exists(Organization, { where: { slug } });
  }

  async insertOrganization(organization: Organization): Promise<void> {
    await this.tx.manager.insert(Organization, organization);
  }

  async findOrganization(organizationId: string): Promise<Organization | null> {
    return this.tx.manager.findOne(Organization, { where: { id: organizationId } });
  }

  /** Takes the organization's row lock for the rest of the transaction; false when the organization is gone. */
  async lockOrganization(organizationId: string, lock: OrganizationLock): Promise<boolean> {
    const rows: unknown[] = await this.tx.transactional.query(`SELECT id FROM organizations WHERE id = $1 ${LOCK_CLAUSES[lock]}`, [
      organizationId,
    ]);
    return rows.length > 0;
  }

  async updateOrganization(organizationId: string, changes: Pick<Organization, 'name' | 'updatedAt'>): Promise<void> {
    await this.tx.manager.update(Organization, { id: organizationId }, changes);
  }

  /**
   * Removes the organization and everything it owns. Rows that reference the organization go by
   * ON DELETE CASCADE (the outboxes, which have no foreign key, are cleared by their owners first);
   * its members' users go last (one organization per user), once nothing of the organization
   * references them any more: still a write of the auth module's table, see docs/architecture.md.
   * Call with the organization locked (`delete`).
   */
  async deleteOrganization(organizationId: string): Promise<void> {
    const users: { user_id: string }[] = await this.tx.transactional.query(
      `SELECT user_id FROM members WHERE organization_id = $1 AND user_id IS NOT NULL`,
      [organizationId],
    );
    await this.tx.transactional.query(`DELETE FROM organizations WHERE id = $1`, [organizationId]);
    if (users.length > 0) {
      await this.tx.transactional.query(
        `DELETE FROM users u WHERE u.id = ANY($1::text[]) AND NOT EXISTS (SELECT 1 FROM members m WHERE m.user_id = u.id)`,
        [users.map((row) => row.user_id)],
      );
    }
  }

  async insertMember(member: Member): Promise<void> {
    await this.tx.manager.insert(Member, member);
  }

  /** The member; an active member's names are kept equal to its user's (updateNamesOfUser). */
  async findMember(organizationId: string, memberId: string): Promise<Member | null> {
    return this.tx.manager
      .createQueryBuilder(Member, 'm')
      .where('m.organizationId = :organizationId AND m.id = :memberId', { organizationId, memberId })
      .getOne();
  }

  async listMembers(organizationId: string, filter: MemberFilter, page: PageRequest): Promise<[Member[], number]> {
    const query = this.tx.manager.createQueryBuilder(Member, 'm').where('m.organizationId = :organizationId', { organizationId });
    if (filter.status) query.andWhere('m.status = :status', { status: filter.status });
    if (filter.role) query.andWhere('m.role = :role', { role: filter.role });
    return query.orderBy('m.createdAt', 'ASC').addOrderBy('m.id', 'ASC').skip(pageOffset(page)).take(page.limit).getManyAndCount();
  }

  async memberEmailExists(organizationId: string, email: string): Promise<boolean> {
    return this.tx.manager.exists(Member, { where: { organizationId, email } });
  }

  /** One organization per user: is this email an active member of any other organization? */
  async activeMemberElsewhere(organizationId: string, email: string): Promise<boolean> {
    return this.tx.manager.exists(Member, { where: { organizationId: Not(organizationId), email, status: 'active' } });
  }

  async countActiveOwners(organizationId: string): Promise<number> {
    return this.tx.transactional.count(Member, { where: { organizationId, status: 'active', role: 'owner' } });
  }

  async updateMemberRole(organizationId: string, memberId: string, role: Role, at: Date): Promise<void> {
    await this.tx.transactional.update(Member, { organizationId, id: memberId }, { role, updatedAt: at });
  }

  /** Its sessions go with it (sessions.member_id cascades), so a removed member is signed out at once. */
  async deleteMember(organizationId: string, memberId: string): Promise<void> {
    await this.tx.transactional.delete(Member, { organizationId, id: memberId });
  }

  /**
   * The one lookup not scoped by organization: an invitation token is presented by someone who has no
   * organization yet, and the token itself is what names the membership. `lock` holds the row until commit.
   */
  async findInvitationByTokenHash(tokenHash: string, lock = false): Promise<Member | null> {
    const query = this.tx.transactional
      .createQueryBuilder(Member, 'm')
      .where(`m.invitationTokenHash = :tokenHash AND m.status = 'invited'`, { tokenHash });
    if (lock) query.setLock('pessimistic_write');
    return query.getOne();
  }

  async activateMember(
    organizationId: string,
    memberId: string,
    changes: Pick<Member, 'userId' | 'firstName' | 'lastName' | 'joinedAt' | 'updatedAt'>,
  ): Promise<void> {
    await this.tx.transactional.update(
      Member,
      { organizationId, id: memberId, status: 'invited' },
      { ...changes, status: 'active', invitationTokenHash: null },
    );
  }

  /** Names and emails of members by user id (mail recipients); users without a membership here are left out. */
  async contactsOf(organizationId: string, userIds: readonly string[]): Promise<Member[]> {
    if (userIds.length === 0) return [];
    return this.tx.manager.find(Member, { where: { organizationId, userId: In([...userIds]) } });
  }

  async findActiveMemberByUser(userId: string): Promise<Member | null> {
    return this.tx.manager.findOne(Member, { where: { userId, status: 'active' } });
  }

  /** The one write keyed by user: one organization per user, so it touches that user's membership only. */
  async updateNamesOfUser(userId: string, names: { firstName: string | null; lastName: string | null }): Promise<void> {
    await this.tx.manager.update(Member, { userId }, names);
  }
}
