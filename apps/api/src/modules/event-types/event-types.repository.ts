import { Injectable } from '@nestjs/common';
import { In } from 'typeorm';
import { PageRequest, pageOffset } from '@app/common';
import { EventTypeHost } from './entities/event-type-host.entity.js';
import { EventType } from './entities/event-type.entity.js';
import { TransactionHost } from '@app/database';

export const SLUG_ACTIVE_KEY = 'event_types_organization_slug_active_key';

export interface EventTypeWithHosts {
  eventType: EventType;
  hostUserIds: string[];
}

interface EventTypeRow {
  id: string;
  organization_id: string;
  title: string;
  slug: string;
  description: string | null;
  duration_minutes: number;
  location_type: EventType['locationType'];
  location: string | null;
  buffer_before_minutes: number;
  buffer_after_minutes: number;
  minimum_notice_hours: number;
  booking_window_days: number;
  max_bookings_per_day: number | null;
  slot_interval_minutes: number | null;
  scheduling_type: EventType['schedulingType'];
  requires_confirmation: boolean;
  is_active: boolean;
  created_at: Date;
  updated_at: Date;
  host_user_ids: string[];
}

function toEntity(row: EventTypeRow): EventType {
  return Object.assign(new EventType(), {
    id: row.id,
    organizationId: row.organization_id,
    title: row.title,
    slug: row.slug,
    description: row.description,
    durationMinutes: row.duration_minutes,
    locationType: row.location_type,
    location: row.location,
    bufferBeforeMinutes: row.buffer_before_minutes,
    bufferAfterMinutes: row.buffer_after_minutes,
    minimumNoticeHours: row.minimum_notice_hours,
    bookingWindowDays: row.booking_window_days,
    maxBookingsPerDay: row.max_bookings_per_day,
    slotIntervalMinutes: row.slot_interval_minutes,
    schedulingType: row.scheduling_type,
    requiresConfirmation: row.requires_confirmation,
    isActive: row.is_active,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  } satisfies EventType);
}

/** The only place that touches TypeORM for event types and their hosts; every method is scoped by organization. */
@Injectable()
export class EventTypesRepository {
  constructor(private readonly tx: TransactionHost) {}

  async insert(organizationId: string, eventType: EventType): Promise<void> {
    await this.tx.transactional.insert(EventType, { ...eventType, organizationId });
  }

  /**
   * Makes `userIds` the hosts, in that order. Resolving user ids to memberships and inserting happen
   * in one statement, so a member removed at the same moment either blocks on the foreign key or is
   * not found. Returns the ids that are not active members of the organization; the caller then rolls back.
   */
  async replaceHosts(organizationId: string, eventTypeId: string, userIds: readonly string[]): Promise<string[]> {
    await this.tx.transactional.query(
      `DELETE FROM event_type_hosts h USING event_types et
        WHERE h.event_type_id = et.id AND et.id = $1 AND et.organization_id = $2`,
      [eventTypeId, organizationId],
    );
    const inserted: { user_id: string }[] = await this.tx.transactional.query(
      `INSERT INTO event_type_hosts (event_type_id, member_id, user_id, position)
       SELECT et.id, m.id, m.user_id, wanted.position
         FROM event_types et
         CROSS JOIN unnest($3::text[]) WITH ORDINALITY AS wanted(user_id, position)
         JOIN members m ON m.organization_id = et.organization_id AND m.user_id = wanted.user_id AND m.status = 'active'
        WHERE et.id = $1 AND et.organization_id = $2
       RETURNING user_id`,
      [eventTypeId, organizationId, userIds],
    );
    const found = new Set(inserted.map((row) => row.user_id));
    return userIds.filter((userId) => !found.has(userId));
  }

  /**
   * The event type and its host user ids in order, in one query (slot computation calls this on every
   * request); `lock` holds the event type row until the transaction ends.
   */
  async findOne(organizationId: string, id: string, lock = false): Promise<EventTypeWithHosts | null> {
    const rows: EventTypeRow[] = await (lock ? this.tx.transactional : this.tx.manager).query(
      `SELECT et.*, ARRAY(SELECT h.user_id FROM event_type_hosts h WHERE h.event_type_id = et.id ORDER BY h.position) AS host_user_ids
         FROM event_types et
        WHERE et.id = $1 AND et.organization_id = $2${lock ? ' FOR UPDATE' : ''}`,
      [id, organizationId],
    );
    return rows.length === 0 ? null : { eventType: toEntity(rows[0]), hostUserIds: rows[0].host_user_ids };
  }

  async list(organizationId: string, isActive: boolean, page: PageRequest): Promise<[EventType[], number]> {
    return this.tx.manager.findAndCount(EventType, {
      where: { organizationId, isActive },
      order: { createdAt: 'DESC', id: 'DESC' },
      skip: pageOffset(page),
      take: page.limit,
    });
  }

  /** Hosts of many event types in one query, each list in order. */
  async hostsOf(organizationId: string, eventTypeIds: readonly string[]): Promise<Map<string, string[]>> {
    const hosts = new Map<string, string[]>(eventTypeIds.map((id) => [id, []]));
    if (eventTypeIds.length === 0) return hosts;
    const rows = await this.tx.manager
      .createQueryBuilder(EventTypeHost, 'h')
      .innerJoin('h.eventType', 'et')
      .where({ eventTypeId: In([...eventTypeIds]) })
      .andWhere('et.organizationId = :organizationId', { organizationId })
      .orderBy('h.position', 'ASC')
      .getMany();
    for (const row of rows) hosts.get(row.eventTypeId)?.push(row.userId);
    return hosts;
  }

  /** Confirmed and pending bookings per event type, in one grouped query. */
  async countActiveBookings(organizationId: string, eventTypeIds: readonly string[], livemode: boolean): Promise<Map<string, number>> {
    const counts = new Map<string, number>(eventTypeIds.map((id) => [id, 0]));
    if (eventTypeIds.length === 0) return counts;
    const rows: { event_type_id: string; count: number }[] = await this.tx.manager.query(
      `SELECT event_type_id, count(*)::int AS count
         FROM bookings
        WHERE organization_id = $1 AND event_type_id = ANY($2::text[]) AND livemode = $3 AND status IN ('confirmed', 'pending')
        GROUP BY event_type_id`,
      [organizationId, eventTypeIds, livemode],
    );
    for (const row of rows) counts.set(row.event_type_id, row.count);
    return counts;
  }

  async update(organizationId: string, id: string, changes: Partial<EventType>): Promise<void> {
    await this.tx.transactional.update(EventType, { id, organizationId }, changes);
  }
}
