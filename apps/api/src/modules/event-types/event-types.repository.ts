import { Injectable } from '@nestjs/common';
import { In } from 'typeorm';
import { PageRequest, pageOffset, type ScopedIds, scopedColumns, type TenantScope } from '@app/common';
import { EventType } from './entities/event-type.entity.js';
import { TransactionHost } from '@app/database';
import {
  EVENT_TYPE_ROW_COLUMNS_SQL,
  EVENT_TYPE_ROW_JSON_SQL,
  type EventTypeJsonRow,
  type EventTypeRow,
  eventTypeFromRow,
  eventTypeRowFromJson,
} from './event-type-row.js';

export const SLUG_ACTIVE_KEY = 'event_types_organization_slug_active_key';

export interface EventTypeWithHosts {
  eventType: EventType;
  hostUserIds: string[];
}

/** The only place that touches TypeORM for event types and their hosts; every method is scoped by organization. */
@Injectable()
export class EventTypesRepository {
  constructor(private readonly tx: TransactionHost) {}

  async insert(scope: TenantScope, eventType: EventType): Promise<void> {
    await this.tx.transactional.insert(EventType, { ...eventType, organizationId: scope.organizationId });
  }

  /**
   * Makes these memberships the hosts, in this order (`hosts`: user id and member id, from the team
   * module). A member removed meanwhile makes the insert fail on the foreign key to members.
   */
  async replaceHosts(scope: TenantScope, eventTypeId: string, hosts: readonly { userId: string; memberId: string }[]): Promise<void> {
    await this.tx.transactional.query(
      `DELETE FROM event_type_hosts h USING event_types et
        WHERE h.event_type_id = et.id AND et.id = $1 AND et.organization_id = $2`,
      [eventTypeId, scope.organizationId],
    );
    await this.tx.transactional.query(
      `INSERT INTO event_type_hosts (event_type_id, member_id, user_id, position)
       SELECT et.id, wanted.member_id, wanted.user_id, wanted.position
         FROM event_types et
         CROSS JOIN unnest($3::text[], $4::text[]) WITH ORDINALITY AS wanted(user_id, member_id, position)
        WHERE et.id = $1 AND et.organization_id = $2`,
      [eventTypeId, scope.organizationId, hosts.map((h) => h.userId), hosts.map((h) => h.memberId)],
    );
  }

  /**
   * The event type and its host user ids in order, in one query (slot computation calls this on every
   * request); `lock` holds the event type row until the transaction ends.
   */
  async findOne(scope: TenantScope, id: string, lock = false): Promise<EventTypeWithHosts | null> {
    if (!lock) {
      // Every booking reads it: prepared (planned once per connection), as JSON so that a column added by a migration
      // while the statement is prepared changes no result type (PostgreSQL refuses a cached plan whose type changed).
      const [found] = await this.tx.prepared<{ row: EventTypeJsonRow }>(
        'event-type-with-hosts',
        `SELECT ${EVENT_TYPE_ROW_JSON_SQL} AS row FROM event_types et WHERE et.id = $1 AND et.organization_id = $2`,
        [id, scope.organizationId],
      );
      if (!found) return null;
      const row = eventTypeRowFromJson(found.row);
      return { eventType: eventTypeFromRow(row), hostUserIds: row.host_user_ids };
    }
    const rows: EventTypeRow[] = await this.tx.transactional.query(
      `SELECT ${EVENT_TYPE_ROW_COLUMNS_SQL} FROM event_types et WHERE et.id = $1 AND et.organization_id = $2 FOR UPDATE`,
      [id, scope.organizationId],
    );
    return rows.length === 0 ? null : { eventType: eventTypeFromRow(rows[0]), hostUserIds: rows[0].host_user_ids };
  }

  /** Active event types with their hosts, oldest first, limited to `ids` unless null; one query. */
  async findActive(scope: TenantScope, ids: readonly string[] | null, limit: number): Promise<EventTypeWithHosts[]> {
    const rows: EventTypeRow[] = await this.tx.reads.query(
      `SELECT ${EVENT_TYPE_ROW_COLUMNS_SQL}
         FROM event_types et
        WHERE et.organization_id = $1 AND et.is_active AND ($2::text[] IS NULL OR et.id = ANY($2::text[]))
        ORDER BY et.created_at, et.id
        LIMIT $3`,
      [scope.organizationId, ids === null ? null : [...ids], limit],
    );
    return rows.map((row) => ({ eventType: eventTypeFromRow(row), hostUserIds: row.host_user_ids }));
  }

  async list(scope: TenantScope, isActive: boolean, page: PageRequest): Promise<[EventType[], number]> {
    return this.tx.reads.findAndCount(EventType, {
      where: { organizationId: scope.organizationId, isActive },
      order: { createdAt: 'DESC', id: 'DESC' },
      skip: pageOffset(page),
      take: page.limit,
    });
  }

  /** Hosts of many event types in one query, each list in order. */
  async hostsOf(scope: TenantScope, eventTypeIds: readonly string[]): Promise<Map<string, string[]>> {
    const hosts = new Map<string, string[]>(eventTypeIds.map((id) => [id, []]));
    if (eventTypeIds.length === 0) return hosts;
    // Prepared: every booking asks this first, before it queues for its hosts.
    const rows = await this.tx.prepared<{ event_type_id: string; user_id: string }>(
      'event-type-hosts',
      `SELECT h.event_type_id, h.user_id FROM event_type_hosts h JOIN event_types et ON et.id = h.event_type_id
        WHERE h.event_type_id = ANY($1::text[]) AND et.organization_id = $2 ORDER BY h.position`,
      [[...eventTypeIds], scope.organizationId],
    );
    for (const row of rows) hosts.get(row.event_type_id)?.push(row.user_id);
    return hosts;
  }

  /** Title, slug, duration and location of these event types, deleted ones included; one query. */
  async findMany(scope: TenantScope, ids: readonly string[]): Promise<EventType[]> {
    if (ids.length === 0) return [];
    return this.tx.reads.find(EventType, { where: { organizationId: scope.organizationId, id: In([...new Set(ids)]) } });
  }

  /** Event types of several organizations at once (a job's round), deleted ones included, in one statement. */
  async findManyAcross(keys: readonly ScopedIds[]): Promise<EventType[]> {
    const { organizationIds, ids } = scopedColumns(keys);
    if (ids.length === 0) return [];
    return this.tx.reads
      .createQueryBuilder(EventType, 'e')
      .where(`(e.organization_id, e.id) IN (SELECT * FROM unnest(CAST(:organizationIds AS text[]), CAST(:ids AS text[])))`, {
        organizationIds,
        ids,
      })
      .getMany();
  }

  async update(scope: TenantScope, id: string, changes: Partial<EventType>): Promise<void> {
    await this.tx.transactional.update(EventType, { id, organizationId: scope.organizationId }, changes);
  }
}
