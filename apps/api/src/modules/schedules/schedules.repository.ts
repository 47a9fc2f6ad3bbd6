import { Injectable } from '@nestjs/common';
import { Between } from 'typeorm';
import { type ScopedIds, scopedColumns, type TenantScope } from '@app/common';
import { DateOverrideEntity } from './entities/date-override.entity.js';
import { WeeklyScheduleEntity } from './entities/weekly-schedule.entity.js';
import { TransactionHost } from '@app/database';

export const OVERRIDE_DATE_KEY = 'date_overrides_member_date_key';

/** The only place that touches TypeORM for schedules and overrides; every method is scoped by organization. */
@Injectable()
export class SchedulesRepository {
  constructor(private readonly tx: TransactionHost) {}

  /** Creates the member's schedule or replaces its hours; the id and createdAt stay. */
  async upsertSchedule(scope: TenantScope, schedule: WeeklyScheduleEntity): Promise<WeeklyScheduleEntity> {
    const rows: { id: string; created_at: Date }[] = await this.tx.transactional.query(
      `INSERT INTO weekly_schedules (id, organization_id, member_id, user_id, timezone, days, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $7)
       ON CONFLICT (member_id) DO UPDATE SET timezone = EXCLUDED.timezone, days = EXCLUDED.days, updated_at = EXCLUDED.updated_at
       RETURNING id, created_at`,
      [
        schedule.id,
        scope.organizationId,
        schedule.memberId,
        schedule.userId,
        schedule.timezone,
        JSON.stringify(schedule.days),
        schedule.updatedAt,
      ],
    );
    return Object.assign(new WeeklyScheduleEntity(), schedule, {
      id: rows[0].id,
      organizationId: scope.organizationId,
      createdAt: rows[0].created_at,
    });
  }

  /** For a new member: the default hours, unless a schedule exists already. */
  async insertScheduleIfMissing(scope: TenantScope, schedule: WeeklyScheduleEntity): Promise<void> {
    await this.tx.transactional
      .createQueryBuilder()
      .insert()
      .into(WeeklyScheduleEntity)
      .values({ ...schedule, organizationId: scope.organizationId })
      .orIgnore()
      .execute();
  }

  findSchedule(scope: TenantScope, userId: string): Promise<WeeklyScheduleEntity | null> {
    return this.tx.reads.findOne(WeeklyScheduleEntity, { where: { organizationId: scope.organizationId, userId } });
  }

  /** The schedules' zones of these users, by user id (those without a schedule are absent). */
  async zonesOf(scope: TenantScope, userIds: readonly string[]): Promise<Map<string, string>> {
    if (userIds.length === 0) return new Map();
    const rows: { user_id: string; timezone: string }[] = await this.tx.reads.query(
      `SELECT user_id, timezone FROM weekly_schedules WHERE organization_id = $1 AND user_id = ANY($2::text[])`,
      [scope.organizationId, [...userIds]],
    );
    return new Map(rows.map((row) => [row.user_id, row.timezone]));
  }

  /** The same for several organizations at once (a job's round), in one statement: by organization id, then user id. */
  async zonesAcross(keys: readonly ScopedIds[]): Promise<Map<string, Map<string, string>>> {
    const { organizationIds, ids } = scopedColumns(keys);
    const zones = new Map<string, Map<string, string>>();
    if (ids.length === 0) return zones;
    const rows: { organization_id: string; user_id: string; timezone: string }[] = await this.tx.reads.query(
      `SELECT organization_id, user_id, timezone FROM weekly_schedules
        WHERE (organization_id, user_id) IN (SELECT * FROM unnest($1::text[], $2::text[]))`,
      [organizationIds, ids],
    );
    for (const row of rows)
      zones.set(row.organization_id, (zones.get(row.organization_id) ?? new Map<string, string>()).set(row.user_id, row.timezone));
    return zones;
  }

  async insertOverride(scope: TenantScope, override: DateOverrideEntity): Promise<void> {
    await this.tx.transactional.insert(DateOverrideEntity, { ...override, organizationId: scope.organizationId });
  }

  findOverride(scope: TenantScope, id: string): Promise<DateOverrideEntity | null> {
    return this.tx.reads.findOne(DateOverrideEntity, { where: { organizationId: scope.organizationId, id } });
  }

  async deleteOverride(scope: TenantScope, id: string): Promise<boolean> {
    const result = await this.tx.transactional.delete(DateOverrideEntity, { organizationId: scope.organizationId, id });
    return (result.affected ?? 0) > 0;
  }

  /** Inclusive dates, in date order. */
  findOverrides(scope: TenantScope, userId: string, startDate: string, endDate: string): Promise<DateOverrideEntity[]> {
    return this.tx.reads.find(DateOverrideEntity, {
      where: { organizationId: scope.organizationId, userId, date: Between(startDate, endDate) },
      order: { date: 'ASC' },
    });
  }
}
