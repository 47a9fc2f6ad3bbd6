import { Injectable } from '@nestjs/common';
import { Between } from 'typeorm';
import { DateOverrideEntity, type OverrideType } from './entities/date-override.entity.js';
import { type StoredScheduleDay, type StoredTimeSlot, WeeklyScheduleEntity } from './entities/weekly-schedule.entity.js';
import { TransactionHost } from '@app/database';

export const OVERRIDE_DATE_KEY = 'date_overrides_member_date_key';

/** A confirmed or pending booking of a host, in epoch milliseconds, with the booking's own buffers. */
export interface BusyRow {
  hostUserId: string;
  eventTypeId: string;
  start: number;
  end: number;
  bufferBeforeMinutes: number;
  bufferAfterMinutes: number;
}

export interface HostSchedule {
  userId: string;
  timezone: string;
  days: StoredScheduleDay[];
}

export interface HostOverride {
  userId: string;
  date: string;
  type: OverrideType;
  slots: StoredTimeSlot[];
}

export interface HostDataQuery {
  livemode: boolean;
  /** Busy time overlapping [from, to), epoch milliseconds. */
  from: number;
  to: number;
  /** Override dates, inclusive. */
  startDate: string;
  endDate: string;
  excludeBookingId: string | null;
  /** The event type whose latest booking per host is wanted (round robin), or null to skip it. */
  lastBookedFor: string | null;
}

export interface HostData {
  schedules: HostSchedule[];
  overrides: HostOverride[];
  busy: BusyRow[];
  lastBookedAt: Map<string, number>;
}

interface RawHostData {
  schedules: [string, string, StoredScheduleDay[]][];
  overrides: [string, string, OverrideType, StoredTimeSlot[]][];
  busy: [string, string, number, number, number, number][];
  last_booked: [string, number][];
}

/**
 * The only place that touches TypeORM for schedules and overrides, and the reader of the busy time
 * availability needs from the bookings tables. Every method is scoped by organization.
 */
@Injectable()
export class AvailabilityRepository {
  constructor(private readonly tx: TransactionHost) {}

  /** Creates the member's schedule or replaces its hours; the id and createdAt stay. */
  async upsertSchedule(organizationId: string, schedule: WeeklyScheduleEntity): Promise<WeeklyScheduleEntity> {
    const rows: { id: string; created_at: Date }[] = await this.tx.manager.query(
      `INSERT INTO weekly_schedules (id, organization_id, member_id, user_id, timezone, days, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $7)
       ON CONFLICT (member_id) DO UPDATE SET timezone = EXCLUDED.timezone, days = EXCLUDED.days, updated_at = EXCLUDED.updated_at
       RETURNING id, created_at`,
      [
        schedule.id,
        organizationId,
        schedule.memberId,
        schedule.userId,
        schedule.timezone,
        JSON.stringify(schedule.days),
        schedule.updatedAt,
      ],
    );
    return Object.assign(new WeeklyScheduleEntity(), schedule, { id: rows[0].id, organizationId, createdAt: rows[0].created_at });
  }

  /** For a new member: the default hours, unless a schedule exists already. */
  async insertScheduleIfMissing(organizationId: string, schedule: WeeklyScheduleEntity): Promise<void> {
    await this.tx.transactional
      .createQueryBuilder()
      .insert()
      .into(WeeklyScheduleEntity)
      .values({ ...schedule, organizationId })
      .orIgnore()
      .execute();
  }

  findSchedule(organizationId: string, userId: string): Promise<WeeklyScheduleEntity | null> {
    return this.tx.manager.findOne(WeeklyScheduleEntity, { where: { organizationId, userId } });
  }

  async insertOverride(organizationId: string, override: DateOverrideEntity): Promise<void> {
    await this.tx.manager.insert(DateOverrideEntity, { ...override, organizationId });
  }

  findOverride(organizationId: string, id: string): Promise<DateOverrideEntity | null> {
    return this.tx.manager.findOne(DateOverrideEntity, { where: { organizationId, id } });
  }

  async deleteOverride(organizationId: string, id: string): Promise<boolean> {
    const result = await this.tx.manager.delete(DateOverrideEntity, { organizationId, id });
    return (result.affected ?? 0) > 0;
  }

  /** Inclusive dates, in date order. */
  findOverrides(organizationId: string, userId: string, startDate: string, endDate: string): Promise<DateOverrideEntity[]> {
    return this.tx.manager.find(DateOverrideEntity, {
      where: { organizationId, userId, date: Between(startDate, endDate) },
      order: { date: 'ASC' },
    });
  }

  /**
   * What slot computation needs about these hosts, in one round trip whatever their number: their
   * schedules; their overrides on dates in [startDate, endDate]; every confirmed or pending booking
   * of theirs in `livemode` whose meeting overlaps [from, to), on any event type, with that booking's
   * own buffers (rows come from booking_hosts, so a collective booking occupies each of its hosts);
   * and, when asked, when each was last booked for `eventTypeId`. Sent as JSON with instants as
   * integer milliseconds (bigint renders faster than numeric), which the driver parses in one go
   * instead of row by row.
   */
  async loadHostData(organizationId: string, hostUserIds: readonly string[], query: HostDataQuery): Promise<HostData> {
    if (hostUserIds.length === 0) return { schedules: [], overrides: [], busy: [], lastBookedAt: new Map() };
    const [row]: RawHostData[] = await this.tx.manager.query(
      `SELECT
         (SELECT coalesce(json_agg(json_build_array(s.user_id, s.timezone, s.days)), '[]')
            FROM weekly_schedules s
           WHERE s.organization_id = $1 AND s.user_id = ANY($2::text[])) AS schedules,
         (SELECT coalesce(json_agg(json_build_array(o.user_id, o.date, o.type, o.slots)), '[]')
            FROM date_overrides o
           WHERE o.organization_id = $1 AND o.user_id = ANY($2::text[]) AND o.date BETWEEN $3::date AND $4::date) AS overrides,
         (SELECT coalesce(json_agg(json_build_array(
                   bh.host_user_id, bh.event_type_id,
                   (extract(epoch FROM lower(bh.during)) * 1000)::bigint, (extract(epoch FROM upper(bh.during)) * 1000)::bigint,
                   b.buffer_before_minutes, b.buffer_after_minutes)), '[]')
            FROM booking_hosts bh
            JOIN bookings b ON b.id = bh.booking_id
           WHERE bh.organization_id = $1 AND bh.host_user_id = ANY($2::text[]) AND bh.livemode = $5
             AND bh.status IN ('confirmed', 'pending')
             AND bh.during && tstzrange(to_timestamp($6::float8 / 1000), to_timestamp($7::float8 / 1000), '[)')
             AND ($8::text IS NULL OR bh.booking_id <> $8::text)) AS busy,
         (SELECT coalesce(json_agg(json_build_array(last.host_user_id, (extract(epoch FROM last.created_at) * 1000)::bigint)), '[]')
            FROM (SELECT bh.host_user_id, max(bh.created_at) AS created_at
                    FROM booking_hosts bh
                   WHERE $9::text IS NOT NULL AND bh.organization_id = $1 AND bh.event_type_id = $9::text
                     AND bh.host_user_id = ANY($2::text[]) AND bh.livemode = $5 AND bh.status IN ('confirmed', 'pending')
                     AND ($8::text IS NULL OR bh.booking_id <> $8::text)
                   GROUP BY bh.host_user_id) last) AS last_booked`,
      [
        organizationId,
        hostUserIds,
        query.startDate,
        query.endDate,
        query.livemode,
        query.from,
        query.to,
        query.excludeBookingId,
        query.lastBookedFor,
      ],
    );
    return {
      schedules: row.schedules.map(([userId, timezone, days]) => ({ userId, timezone, days })),
      overrides: row.overrides.map(([userId, date, type, slots]) => ({ userId, date, type, slots })),
      busy: row.busy.map(([hostUserId, eventTypeId, start, end, bufferBeforeMinutes, bufferAfterMinutes]) => ({
        hostUserId,
        eventTypeId,
        start,
        end,
        bufferBeforeMinutes,
        bufferAfterMinutes,
      })),
      lastBookedAt: new Map(row.last_booked),
    };
  }
}
