import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@app/database';
import {
  AppError,
  Clock,
  ErrorCode,
  type ErrorDetail,
  newId,
  Permission,
  Principal,
  roleHas,
  isUniqueViolation,
  daysBetween,
  isIanaTimeZone,
  tenantScope,
  type ScopedIds,
  type TenantScope,
} from '@app/common';
import { AuditTrail, changesBetween } from '../audit/index.js';
import { TeamService } from '../team/index.js';
import { OVERRIDE_DATE_KEY, SchedulesRepository } from './schedules.repository.js';
import {
  CreateOverrideDto,
  ListOverridesQueryDto,
  MAX_OVERRIDE_DATES,
  OverrideListResponse,
  OverrideResponse,
  OverrideView,
} from './dto/override.dto.js';
import { PutScheduleDto, ScheduleResponse, ScheduleView, TimeSlotDto } from './dto/schedule.dto.js';
import { DateOverrideEntity } from './entities/date-override.entity.js';
import { StoredScheduleDay, StoredTimeSlot, WeeklyScheduleEntity } from './entities/weekly-schedule.entity.js';

/** Monday–Friday 09:00–17:00, what every new member starts with (api-rules.md § Auth). */
const DEFAULT_DAYS: StoredScheduleDay[] = [1, 2, 3, 4, 5].map((dayOfWeek) => ({
  dayOfWeek,
  slots: [{ startTime: '09:00', endTime: '17:00' }],
}));

export interface TargetMember {
  userId: string;
  memberId: string;
}

function minutesOf(time: string): number {
  return Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5));
}

function sortedSlots(slots: readonly TimeSlotDto[]): StoredTimeSlot[] {
  return slots.map(({ startTime, endTime }) => ({ startTime, endTime })).sort((a, b) => minutesOf(a.startTime) - minutesOf(b.startTime));
}

/** startTime < endTime for each slot, and no two slots of one day overlap (touching is fine). */
function slotErrors(slots: readonly TimeSlotDto[], path: string): ErrorDetail[] {
  const errors: ErrorDetail[] = [];
  const valid: number[] = [];
  slots.forEach((slot, index) => {
    if (minutesOf(slot.startTime) < minutesOf(slot.endTime)) valid.push(index);
    else errors.push({ field: `${path}[${index}].endTime`, message: 'endTime must be after startTime' });
  });
  valid.sort((a, b) => minutesOf(slots[a].startTime) - minutesOf(slots[b].startTime) || a - b);
  let latest = -1;
  for (const index of valid) {
    if (latest >= 0 && minutesOf(slots[index].startTime) < minutesOf(slots[latest].endTime)) {
      errors.push({ field: `${path}[${index}].startTime`, message: `overlaps ${path}[${latest}]` });
    }
    if (latest < 0 || minutesOf(slots[index].endTime) > minutesOf(slots[latest].endTime)) latest = index;
  }
  return errors;
}

function invalid(details: ErrorDetail[]): AppError {
  return new AppError(ErrorCode.VALIDATION_ERROR, 'Validation failed', details);
}

function scheduleView(schedule: WeeklyScheduleEntity): ScheduleView {
  return {
    id: schedule.id,
    userId: schedule.userId,
    timezone: schedule.timezone,
    schedules: schedule.days.map((day) => ({ dayOfWeek: day.dayOfWeek, slots: day.slots.map((slot) => ({ ...slot })) })),
    updatedAt: schedule.updatedAt.toISOString(),
  };
}

/** What schedule.updated compares: each slot's keys in one order (jsonb gives them back in its own). */
function auditedWeek(schedule: WeeklyScheduleEntity): { timezone: string; schedules: unknown[] } {
  return {
    timezone: schedule.timezone,
    schedules: schedule.days.map((day) => ({
      dayOfWeek: day.dayOfWeek,
      slots: day.slots.map((slot) => ({ startTime: slot.startTime, endTime: slot.endTime })),
    })),
  };
}

function overrideView(override: DateOverrideEntity): OverrideView {
  return {
    id: override.id,
    userId: override.userId,
    date: override.date,
    type: override.type,
    reason: override.reason,
    slots: override.slots.map((slot) => ({ ...slot })),
    createdAt: override.createdAt.toISOString(),
  };
}

/** Weekly schedules and date overrides: a member's own, or anyone's for owners, admins and API keys. */
@Injectable()
export class SchedulesService {
  constructor(
    private readonly repository: SchedulesRepository,
    private readonly team: TeamService,
    private readonly clock: Clock,
    private readonly tx: TransactionHost,
    private readonly audit: AuditTrail,
  ) {}

  async getSchedule(principal: Principal, userId: string | undefined): Promise<ScheduleResponse> {
    const target = await this.targetMember(principal, userId);
    const schedule = await this.repository.findSchedule(tenantScope(principal), target.userId);
    if (!schedule) throw AppError.notFound('Schedule');
    return { schedule: scheduleView(schedule) };
  }

  async putSchedule(principal: Principal, userId: string | undefined, dto: PutScheduleDto): Promise<ScheduleResponse> {
    const errors: ErrorDetail[] = [];
    if (!isIanaTimeZone(dto.timezone))
      errors.push({ field: 'timezone', message: 'timezone must be an IANA time zone such as Europe/Berlin' });
    const seen = new Map<number, number>();
    dto.schedules.forEach((day, index) => {
      const first = seen.get(day.dayOfWeek);
      if (first !== undefined) {
        errors.push({
          field: `schedules[${index}].dayOfWeek`,
          message: `dayOfWeek ${day.dayOfWeek} already appears at schedules[${first}]`,
        });
      } else {
        seen.set(day.dayOfWeek, index);
      }
      errors.push(...slotErrors(day.slots, `schedules[${index}].slots`));
    });
    if (errors.length > 0) throw invalid(errors);

    const target = await this.targetMember(principal, userId);
    const now = this.clock.now();
    const schedule = Object.assign(new WeeklyScheduleEntity(), {
      id: newId('sch'),
      organizationId: principal.organizationId,
      memberId: target.memberId,
      userId: target.userId,
      timezone: dto.timezone,
      days: [...dto.schedules]
        .sort((a, b) => a.dayOfWeek - b.dayOfWeek)
        .map((day) => ({ dayOfWeek: day.dayOfWeek, slots: sortedSlots(day.slots) })),
      createdAt: now,
      updatedAt: now,
    } satisfies WeeklyScheduleEntity);
    const scope = tenantScope(principal);
    const saved = await this.tx.transaction(async () => {
      const before = await this.repository.findSchedule(scope, target.userId);
      const after = await this.repository.upsertSchedule(scope, schedule);
      // schedule.updated's `changes` (contract § 18): the fields that changed, the whole week when any day did.
      this.audit.describe({ changes: changesBetween(before ? auditedWeek(before) : {}, auditedWeek(after)) });
      return after;
    });
    return { schedule: scheduleView(saved) };
  }

  /**
   * The default weekly hours of a new member, inside the caller's transaction (registration,
   * invitation acceptance) for the member `principal` has just become, in the user's `timezone`.
   */
  async createDefaultSchedule(principal: Principal, timezone: string): Promise<void> {
    if (!principal.memberId) throw new Error('createDefaultSchedule needs the principal of a member');
    const now = this.clock.now();
    const schedule = Object.assign(new WeeklyScheduleEntity(), {
      id: newId('sch'),
      organizationId: principal.organizationId,
      memberId: principal.memberId,
      userId: principal.userId,
      timezone: isIanaTimeZone(timezone) ? timezone : 'UTC',
      days: DEFAULT_DAYS,
      createdAt: now,
      updatedAt: now,
    } satisfies WeeklyScheduleEntity);
    await this.repository.insertScheduleIfMissing(tenantScope(principal), schedule);
  }

  /** The zone of the member's weekly schedule (UTC without one): where its all-day and floating calendar times fall. */
  async timezoneOf(scope: TenantScope, userId: string): Promise<string> {
    return (await this.repository.findSchedule(scope, userId))?.timezone ?? 'UTC';
  }

  /** The same for several members at once, by user id: where a host's reminder shows its times. */
  async timezonesOf(scope: TenantScope, userIds: readonly string[]): Promise<Map<string, string>> {
    const zones = await this.repository.zonesOf(scope, userIds);
    return new Map(userIds.map((userId) => [userId, zones.get(userId) ?? 'UTC']));
  }

  /** The same for several organizations at once (a job's round), in one statement: by organization id, then user id (UTC without a schedule). */
  async timezonesAcross(keys: readonly ScopedIds[]): Promise<Map<string, Map<string, string>>> {
    const zones = await this.repository.zonesAcross(keys);
    const result = new Map<string, Map<string, string>>();
    for (const { scope, ids } of keys) {
      const found = zones.get(scope.organizationId);
      const ofOrganization = result.get(scope.organizationId) ?? new Map<string, string>();
      for (const userId of ids) ofOrganization.set(userId, found?.get(userId) ?? 'UTC');
      result.set(scope.organizationId, ofOrganization);
    }
    return result;
  }

  async createOverride(principal: Principal, userId: string | undefined, dto: CreateOverrideDto): Promise<OverrideResponse> {
    const slots = dto.slots ?? [];
    if (dto.type === 'custom' && slots.length === 0) throw AppError.validation('slots', 'custom overrides need at least one slot');
    if (dto.type === 'unavailable' && slots.length > 0) throw AppError.validation('slots', 'unavailable overrides take no slots');
    const errors = slotErrors(slots, 'slots');
    if (errors.length > 0) throw invalid(errors);

    const target = await this.targetMember(principal, userId);
    const override = Object.assign(new DateOverrideEntity(), {
      id: newId('ovr'),
      organizationId: principal.organizationId,
      memberId: target.memberId,
      userId: target.userId,
      date: dto.date,
      type: dto.type,
      reason: dto.reason ?? null,
      slots: sortedSlots(slots),
      createdAt: this.clock.now(),
    } satisfies DateOverrideEntity);
    try {
      await this.tx.transaction(() => this.repository.insertOverride(tenantScope(principal), override));
    } catch (error) {
      // Checked by the unique index, so two concurrent requests for one date give one 201 and one 409.
      if (isUniqueViolation(error, OVERRIDE_DATE_KEY)) {
        throw new AppError(ErrorCode.OVERRIDE_EXISTS, `An override for ${dto.date} exists already; delete it first`, [
          { field: 'date', message: 'one override per user and date' },
        ]);
      }
      throw error;
    }
    return { override: overrideView(override) };
  }

  async listOverrides(principal: Principal, query: ListOverridesQueryDto): Promise<OverrideListResponse> {
    const span = daysBetween(query.startDate, query.endDate);
    if (span < 0) throw AppError.validation('endDate', 'endDate must not be before startDate');
    if (span >= MAX_OVERRIDE_DATES) throw AppError.validation('endDate', `at most ${MAX_OVERRIDE_DATES} dates per request`);
    const target = await this.targetMember(principal, query.userId);
    const overrides = await this.repository.findOverrides(tenantScope(principal), target.userId, query.startDate, query.endDate);
    return { overrides: overrides.map(overrideView), totalCount: overrides.length };
  }

  async deleteOverride(principal: Principal, id: string): Promise<void> {
    const override = await this.repository.findOverride(tenantScope(principal), id);
    if (!override) throw AppError.notFound('Override');
    this.assertMayManage(principal, override.userId);
    if (!(await this.tx.transaction(() => this.repository.deleteOverride(tenantScope(principal), id)))) throw AppError.notFound('Override');
  }

  /**
   * Whose availability a request is about: `userId` or the acting user. Asking for someone else needs
   * a role that manages others' availability (API keys act for the organization); the user must be an
   * active member of the caller's organization, else 404.
   */
  async targetMember(principal: Principal, userId: string | undefined): Promise<TargetMember> {
    const target = userId ?? principal.userId;
    this.assertMayManage(principal, target);
    if (target === principal.userId && principal.memberId) return { userId: target, memberId: principal.memberId };
    const member = await this.team.findActiveMember(tenantScope(principal), target);
    if (!member) throw AppError.notFound('Member');
    return { userId: target, memberId: member.id };
  }

  private assertMayManage(principal: Principal, userId: string): void {
    if (userId === principal.userId || principal.role === null) return;
    if (!roleHas(principal.role, Permission.ManageOthersAvailability)) {
      throw AppError.forbidden('Members may only see and change their own availability');
    }
  }
}
