import { Injectable } from '@nestjs/common';
import type { TenantScope } from '@app/common';
import { TransactionHost } from '@app/database';
import { OutOfOfficeEntry } from './entities/out-of-office-entry.entity.js';

export const OUT_OF_OFFICE_OVERLAP_CONSTRAINT = 'out_of_office_entries_no_overlap';
export const OUT_OF_OFFICE_EXTERNAL_ID_KEY = 'out_of_office_entries_external_id_key';

export interface OutOfOfficeFilter {
  userId: string | null;
  from: Date | null;
  to: Date | null;
}

/** The only place that touches out_of_office_entries; every method is scoped by organization. */
@Injectable()
export class OutOfOfficeRepository {
  constructor(private readonly tx: TransactionHost) {}

  async insert(scope: TenantScope, entry: OutOfOfficeEntry): Promise<void> {
    await this.tx.transactional.insert(OutOfOfficeEntry, { ...entry, organizationId: scope.organizationId });
  }

  async update(scope: TenantScope, entry: OutOfOfficeEntry): Promise<void> {
    const { id, startsAt, endsAt, note, redirectToUserId, memberId, userId, updatedAt } = entry;
    await this.tx.transactional.update(
      OutOfOfficeEntry,
      { organizationId: scope.organizationId, id },
      { startsAt, endsAt, note, redirectToUserId, memberId, userId, updatedAt },
    );
  }

  find(scope: TenantScope, id: string): Promise<OutOfOfficeEntry | null> {
    return this.tx.reads.findOne(OutOfOfficeEntry, { where: { organizationId: scope.organizationId, id } });
  }

  /** The entry, its row locked until the caller's transaction ends (a PATCH reads what it changes under the lock). */
  findForUpdate(scope: TenantScope, id: string): Promise<OutOfOfficeEntry | null> {
    return this.tx.transactional.findOne(OutOfOfficeEntry, {
      where: { organizationId: scope.organizationId, id },
      lock: { mode: 'pessimistic_write' },
    });
  }

  /**
   * Takes the organization's lock on this external id until the caller's transaction ends, and reads its entry: two
   * PUTs of one external id run one after the other, the second seeing the first's entry (even one it just created).
   */
  async lockExternalId(scope: TenantScope, externalId: string): Promise<void> {
    await this.tx.transactional.query(`SELECT pg_advisory_xact_lock(hashtextextended('ooo:' || $1 || ':' || $2, 0))`, [
      scope.organizationId,
      externalId,
    ]);
  }

  findByExternalIdForUpdate(scope: TenantScope, externalId: string): Promise<OutOfOfficeEntry | null> {
    return this.tx.transactional.findOne(OutOfOfficeEntry, {
      where: { organizationId: scope.organizationId, externalId },
      lock: { mode: 'pessimistic_write' },
    });
  }

  /** Entries of the organization redirecting to `userId` redirect to no one (the member was removed, contract § 17). */
  async clearRedirectsTo(scope: TenantScope, userId: string, at: Date): Promise<void> {
    await this.tx.transactional.update(
      OutOfOfficeEntry,
      { organizationId: scope.organizationId, redirectToUserId: userId },
      { redirectToUserId: null, updatedAt: at },
    );
  }

  async delete(scope: TenantScope, id: string): Promise<boolean> {
    const result = await this.tx.transactional.delete(OutOfOfficeEntry, { organizationId: scope.organizationId, id });
    return (result.affected ?? 0) > 0;
  }

  /** A page by start, and the count of all that match. */
  async list(scope: TenantScope, filter: OutOfOfficeFilter, offset: number, limit: number): Promise<[OutOfOfficeEntry[], number]> {
    const query = this.tx.reads
      .createQueryBuilder(OutOfOfficeEntry, 'o')
      .where('o.organizationId = :organizationId', { organizationId: scope.organizationId });
    if (filter.userId !== null) query.andWhere('o.userId = :userId', { userId: filter.userId });
    if (filter.from !== null) query.andWhere('o.endsAt > :from', { from: filter.from });
    if (filter.to !== null) query.andWhere('o.startsAt < :to', { to: filter.to });
    return query.orderBy('o.startsAt', 'ASC').addOrderBy('o.id', 'ASC').skip(offset).take(limit).getManyAndCount();
  }
}
