import { Injectable } from '@nestjs/common';
import type { SchedulingType } from '@app/availability';
import {
  AppError,
  Clock,
  ErrorCode,
  isForeignKeyViolation,
  isUniqueViolation,
  liveScopeOf,
  newId,
  PageRequest,
  pageMeta,
  Principal,
  tenantScope,
  type ScopedIds,
  type TenantScope,
} from '@app/common';
import { BookingCounts } from '../booking-occupancy/index.js';
import { TeamService } from '../team/index.js';
import { DomainEvents, type DomainEventType } from '../outbox/index.js';
import {
  CreateEventTypeDto,
  EventTypeListResponse,
  EventTypeResponse,
  EventTypeView,
  ListEventTypesQueryDto,
  UpdateEventTypeDto,
} from './dto/event-type.dto.js';
import { EventType, type Recurrence } from './entities/event-type.entity.js';
import { type EventTypeRow, eventTypeFromRow } from './event-type-row.js';
import { EventTypesRepository, SLUG_ACTIVE_KEY } from './event-types.repository.js';
import { normalizeQuestions } from './questions.js';
import { normalizeReminders, type Reminder } from './reminders.js';
import { type ChangePolicy, DEFAULT_CHANGE_POLICY, mergePolicy } from './change-policy.js';
import { TransactionHost } from '@app/database';
import { AuditTrail, changesBetween } from '../audit/index.js';

/** An event type as other modules see it (availability, bookings): every field but the bookings count. */
export type EventTypeDetails = Omit<EventTypeView, 'bookingsCount'>;

/** What a booking shows of its event type, deleted event types included. */
export interface EventTypeSummary {
  id: string;
  title: string;
  slug: string;
  durationMinutes: number;
  location: string | null;
  /** The reminders in force (api-rules.md § Reminders). */
  reminders: Reminder[];
  /** The attendee change policies in force (contract § 17). */
  attendeeCancellation: ChangePolicy;
  attendeeRescheduling: ChangePolicy;
}

/**
 * Told inside the transaction that changed the times of an event type's reminders, after its row is locked: bookings
 * keeps the due reminders of the event type's bookings in step (api-rules.md § Reminders).
 */
export type RemindersChanged = (scope: TenantScope, eventTypeId: string, reminders: readonly Reminder[]) => Promise<void>;

/** The PATCHable columns: everything the update DTO names except the hosts, which live in their own table. */
const UPDATABLE_FIELDS = [
  'title',
  'slug',
  'description',
  'durationMinutes',
  'locationType',
  'location',
  'bufferBeforeMinutes',
  'bufferAfterMinutes',
  'minimumNoticeHours',
  'bookingWindowDays',
  'maxBookingsPerDay',
  'slotIntervalMinutes',
  'schedulingType',
  'requiresConfirmation',
  'holdMinutes',
  'seatsPerSlot',
  'recurrence',
] as const satisfies readonly (keyof UpdateEventTypeDto & keyof EventType)[];

function details(eventType: EventType, hostUserIds: readonly string[]): EventTypeDetails {
  return {
    id: eventType.id,
    title: eventType.title,
    slug: eventType.slug,
    description: eventType.description,
    durationMinutes: eventType.durationMinutes,
    locationType: eventType.locationType,
    location: eventType.location,
    bufferBeforeMinutes: eventType.bufferBeforeMinutes,
    bufferAfterMinutes: eventType.bufferAfterMinutes,
    minimumNoticeHours: eventType.minimumNoticeHours,
    bookingWindowDays: eventType.bookingWindowDays,
    maxBookingsPerDay: eventType.maxBookingsPerDay,
    slotIntervalMinutes: eventType.slotIntervalMinutes,
    schedulingType: eventType.schedulingType,
    hostUserIds: [...hostUserIds],
    requiresConfirmation: eventType.requiresConfirmation,
    holdMinutes: eventType.holdMinutes,
    questions: eventType.questions,
    seatsPerSlot: eventType.seatsPerSlot,
    recurrence: eventType.recurrence,
    reminders: eventType.reminders,
    attendeeCancellation: eventType.attendeeCancellation,
    attendeeRescheduling: eventType.attendeeRescheduling,
    isActive: eventType.isActive,
    createdAt: eventType.createdAt.toISOString(),
    updatedAt: eventType.updatedAt.toISOString(),
  };
}

function view(eventType: EventType, hostUserIds: readonly string[], bookingsCount: number): EventTypeView {
  const { createdAt, updatedAt, ...rest } = details(eventType, hostUserIds);
  return { ...rest, bookingsCount, createdAt, updatedAt };
}

function slugTaken(slug: string | undefined): AppError {
  return new AppError(ErrorCode.SLUG_TAKEN, 'An active event type of this organization already uses this slug', [
    { field: 'slug', message: `slug '${slug ?? ''}' is in use` },
  ]);
}

function assertHostCount(schedulingType: SchedulingType, hostUserIds: readonly string[]): void {
  if (schedulingType === 'one_on_one' && hostUserIds.length !== 1) {
    throw AppError.validation('hostUserIds', 'one_on_one event types take exactly one host');
  }
  if (hostUserIds.length === 0) throw AppError.validation('hostUserIds', `${schedulingType} event types need at least one host`);
}

/** What getForScheduling answers, from a row a read model selected (availability's cache fingerprint): 404 when there is none, 409 when deleted. */
export function schedulingDetailsOf(row: EventTypeRow | null): EventTypeDetails {
  if (!row) throw AppError.notFound('Event type');
  if (!row.is_active) throw inactive();
  return details(eventTypeFromRow(row), row.host_user_ids);
}

/** A reminder list's times, as its due rows know them (stored lists are sorted already). */
function minutesOf(reminders: readonly Reminder[]): number[] {
  return reminders.map((reminder) => reminder.minutesBefore);
}

/** The rule as stored: exactly its three fields (the DTO may carry no others, but its class is not the column's). */
function recurrenceOf(dto: Recurrence | null | undefined): Recurrence | null {
  return dto ? { frequency: dto.frequency, interval: dto.interval, maxCount: dto.maxCount } : null;
}

/** Seats and recurrence exclude each other (api-rules.md § Seats and series). */
function assertSeatsOrRecurrence(eventType: Pick<EventType, 'seatsPerSlot' | 'recurrence'>): void {
  if (eventType.seatsPerSlot !== null && eventType.recurrence !== null) {
    throw AppError.validation('seatsPerSlot', 'seatsPerSlot cannot be set together with recurrence');
  }
}

function inactive(): AppError {
  return new AppError(ErrorCode.EVENT_TYPE_INACTIVE, 'This event type has been deleted');
}

@Injectable()
export class EventTypesService {
  private readonly remindersChanged: RemindersChanged[] = [];

  constructor(
    private readonly audit: AuditTrail,
    private readonly tx: TransactionHost,
    private readonly repository: EventTypesRepository,
    private readonly team: TeamService,
    private readonly bookingCounts: BookingCounts,
    private readonly events: DomainEvents,
    private readonly clock: Clock,
  ) {}

  async create(principal: Principal, dto: CreateEventTypeDto): Promise<EventTypeResponse> {
    const schedulingType = dto.schedulingType ?? 'one_on_one';
    const hostUserIds = dto.hostUserIds ?? [principal.userId];
    assertHostCount(schedulingType, hostUserIds);
    assertSeatsOrRecurrence({ seatsPerSlot: dto.seatsPerSlot ?? null, recurrence: dto.recurrence ?? null });
    const now = this.clock.now();
    const eventType = Object.assign(new EventType(), {
      id: newId('evt'),
      organizationId: principal.organizationId,
      title: dto.title,
      slug: dto.slug,
      description: dto.description ?? null,
      durationMinutes: dto.durationMinutes,
      locationType: dto.locationType ?? null,
      location: dto.location ?? null,
      bufferBeforeMinutes: dto.bufferBeforeMinutes ?? 0,
      bufferAfterMinutes: dto.bufferAfterMinutes ?? 0,
      minimumNoticeHours: dto.minimumNoticeHours ?? 0,
      bookingWindowDays: dto.bookingWindowDays ?? 60,
      maxBookingsPerDay: dto.maxBookingsPerDay ?? null,
      slotIntervalMinutes: dto.slotIntervalMinutes ?? null,
      schedulingType,
      requiresConfirmation: dto.requiresConfirmation ?? false,
      holdMinutes: dto.holdMinutes ?? 10,
      questions: normalizeQuestions(dto.questions ?? []),
      seatsPerSlot: dto.seatsPerSlot ?? null,
      recurrence: recurrenceOf(dto.recurrence),
      reminders: normalizeReminders(dto.reminders ?? []),
      attendeeCancellation: mergePolicy(DEFAULT_CHANGE_POLICY, dto.attendeeCancellation),
      attendeeRescheduling: mergePolicy(DEFAULT_CHANGE_POLICY, dto.attendeeRescheduling),
      isActive: true,
      createdAt: now,
      updatedAt: now,
    } satisfies EventType);
    try {
      return await this.tx.transaction(async () => {
        await this.repository.insert(tenantScope(principal), eventType);
        await this.setHosts(principal, eventType.id, hostUserIds, dto.hostUserIds === undefined);
        await this.record(principal, 'event_type.created', view(eventType, hostUserIds, 0));
        return { eventType: view(eventType, hostUserIds, 0) };
      });
    } catch (error) {
      // Two creates with one slug at once: the partial unique index lets exactly one in.
      if (isUniqueViolation(error, SLUG_ACTIVE_KEY)) throw slugTaken(dto.slug);
      throw error;
    }
  }

  async list(principal: Principal, query: ListEventTypesQueryDto): Promise<EventTypeListResponse> {
    const page: PageRequest = { page: query.page, limit: query.limit };
    const scope = tenantScope(principal);
    const [eventTypes, total] = await this.repository.list(scope, query.isActive ?? true, page);
    const ids = eventTypes.map((eventType) => eventType.id);
    const [hosts, counts] = await Promise.all([this.repository.hostsOf(scope, ids), this.bookingCounts.activeByEventType(scope, ids)]);
    return {
      eventTypes: eventTypes.map((eventType) => view(eventType, hosts.get(eventType.id) ?? [], counts.get(eventType.id) ?? 0)),
      ...pageMeta(page, total),
    };
  }

  async get(principal: Principal, id: string): Promise<EventTypeResponse> {
    const found = await this.repository.findOne(tenantScope(principal), id);
    if (!found) throw AppError.notFound('Event type');
    return { eventType: view(found.eventType, found.hostUserIds, await this.count(tenantScope(principal), id)) };
  }

  async update(principal: Principal, id: string, dto: UpdateEventTypeDto): Promise<EventTypeResponse> {
    try {
      return await this.tx.transaction(async () => {
        const scope = tenantScope(principal);
        // Seats may be counted below under the hosts' locks: those first, then the row, as bookings take them.
        if (dto.seatsPerSlot !== undefined) await this.bookingCounts.lockHosts(scope, await this.hostUserIdsOf(scope, id));
        const found = await this.repository.findOne(scope, id, true);
        if (!found) throw AppError.notFound('Event type');
        const current = found.eventType;
        if (!current.isActive) throw inactive();
        const changes: Partial<EventType> = {};
        for (const field of UPDATABLE_FIELDS) {
          if (dto[field] !== undefined) Object.assign(changes, { [field]: dto[field] });
        }
        if (dto.questions !== undefined) changes.questions = normalizeQuestions(dto.questions);
        if (dto.reminders !== undefined) changes.reminders = normalizeReminders(dto.reminders);
        if (dto.recurrence !== undefined) changes.recurrence = recurrenceOf(dto.recurrence);
        if (dto.attendeeCancellation !== undefined)
          changes.attendeeCancellation = mergePolicy(current.attendeeCancellation, dto.attendeeCancellation);
        if (dto.attendeeRescheduling !== undefined)
          changes.attendeeRescheduling = mergePolicy(current.attendeeRescheduling, dto.attendeeRescheduling);
        assertSeatsOrRecurrence({ ...current, ...changes });
        let hostUserIds = found.hostUserIds;
        if (dto.hostUserIds !== undefined || dto.schedulingType !== undefined) {
          hostUserIds = dto.hostUserIds ?? hostUserIds;
          assertHostCount(dto.schedulingType ?? current.schedulingType, hostUserIds);
        }
        // Fewer seats than some future start already has → 409 SEATS_IN_USE, decided under the hosts' locks.
        if (changes.seatsPerSlot !== undefined && (changes.seatsPerSlot ?? 1) < (current.seatsPerSlot ?? 1)) {
          const taken = await this.bookingCounts.mostSeatsTaken(scope, id, found.hostUserIds, this.clock.now());
          if (taken > (changes.seatsPerSlot ?? 1)) {
            throw new AppError(ErrorCode.SEATS_IN_USE, `A future start already has ${taken} seats taken`, [
              { field: 'seatsPerSlot', message: `must be at least ${taken}` },
            ]);
          }
        }
        // Due rows follow the reminders' times only: a list whose times stay (the console saves it with every edit, or only
        // its recipients changed) moves no booking's rows.
        const timesChanged = changes.reminders !== undefined && minutesOf(changes.reminders).join() !== minutesOf(current.reminders).join();
        this.audit.describe({
          changes: changesBetween(
            { ...current, hostUserIds: found.hostUserIds },
            { ...changes, ...(dto.hostUserIds === undefined ? {} : { hostUserIds }) },
          ),
        });
        const updated = Object.assign(current, changes);
        if (Object.keys(changes).length > 0 || dto.hostUserIds !== undefined) {
          updated.updatedAt = this.clock.now();
          await this.repository.update(scope, id, { ...changes, updatedAt: updated.updatedAt });
          if (timesChanged) {
            for (const listener of this.remindersChanged) await listener(scope, id, updated.reminders);
          }
          if (dto.hostUserIds !== undefined) await this.setHosts(principal, id, hostUserIds, false);
          const liveCount = await this.count(liveScopeOf(scope), id);
          await this.record(principal, 'event_type.updated', view(updated, hostUserIds, liveCount));
        }
        const count = await this.count(scope, id);
        return { eventType: view(updated, hostUserIds, count) };
      });
    } catch (error) {
      if (isUniqueViolation(error, SLUG_ACTIVE_KEY)) throw slugTaken(dto.slug);
      throw error;
    }
  }

  /** Soft delete; deleting a deleted event type changes nothing and still succeeds. */
  async remove(principal: Principal, id: string): Promise<void> {
    await this.tx.transaction(async () => {
      const scope = tenantScope(principal);
      const found = await this.repository.findOne(scope, id, true);
      if (!found) throw AppError.notFound('Event type');
      const current = found.eventType;
      if (!current.isActive) return;
      current.isActive = false;
      current.updatedAt = this.clock.now();
      await this.repository.update(scope, id, { isActive: false, updatedAt: current.updatedAt });
      const liveCount = await this.count(liveScopeOf(scope), id);
      await this.record(principal, 'event_type.deleted', view(current, found.hostUserIds, liveCount));
    });
  }

  /** `listener` runs in every transaction that replaces an event type's reminders (bookings registers it). */
  onRemindersChanged(listener: RemindersChanged): void {
    this.remindersChanged.push(listener);
  }

  /**
   * The event type as slot computation and booking need it, optionally inside the caller's
   * transaction: unknown or another organization's → 404, deleted → 409 EVENT_TYPE_INACTIVE.
   */
  async getForScheduling(scope: TenantScope, eventTypeId: string): Promise<EventTypeDetails> {
    const found = await this.repository.findOne(scope, eventTypeId);
    if (!found) throw AppError.notFound('Event type');
    if (!found.eventType.isActive) throw inactive();
    return details(found.eventType, found.hostUserIds);
  }

  /** Active event types, limited to `ids` unless null (a publishable key's list), oldest first, at most `limit`. */
  async active(scope: TenantScope, ids: readonly string[] | null, limit: number): Promise<EventTypeDetails[]> {
    const found = await this.repository.findActive(scope, ids, limit);
    return found.map(({ eventType, hostUserIds }) => details(eventType, hostUserIds));
  }

  /** The event type's host user ids in order (none when unknown), cheaply: bookings lock these before reading anything else. */
  async hostUserIdsOf(scope: TenantScope, eventTypeId: string): Promise<string[]> {
    return (await this.repository.hostsOf(scope, [eventTypeId])).get(eventTypeId) ?? [];
  }

  /** Summaries of these event types for booking views, by id, deleted ones included. */
  async summaries(scope: TenantScope, ids: readonly string[]): Promise<Map<string, EventTypeSummary>> {
    return summariesOf(await this.repository.findMany(scope, ids));
  }

  /** The same for several organizations at once (a job's round), in one statement; by id (ids are unique everywhere). */
  async summariesAcross(keys: readonly ScopedIds[]): Promise<Map<string, EventTypeSummary>> {
    return summariesOf(await this.repository.findManyAcross(keys));
  }

  private async setHosts(principal: Principal, eventTypeId: string, hostUserIds: readonly string[], defaulted: boolean): Promise<void> {
    const scope = tenantScope(principal);
    const memberIds = await this.team.activeMemberIdsOf(scope, hostUserIds);
    const missing = hostUserIds.filter((userId) => !memberIds.has(userId));
    if (missing.length === 0) {
      try {
        return await this.repository.replaceHosts(
          scope,
          eventTypeId,
          hostUserIds.map((userId) => ({ userId, memberId: memberIds.get(userId)! })),
        );
      } catch (error) {
        // A host removed from the organization since it was read: as if it had not been found.
        if (!isForeignKeyViolation(error)) throw error;
      }
    }
    throw AppError.validation(
      'hostUserIds',
      defaulted
        ? 'The acting user is not an active member of this organization; give hostUserIds'
        : `Not active members of this organization: ${(missing.length > 0 ? missing : hostUserIds).join(', ')}`,
    );
  }

  private async count(scope: TenantScope, id: string): Promise<number> {
    return (await this.bookingCounts.activeByEventType(scope, [id])).get(id) ?? 0;
  }

  /** Event type changes are organization data, shared by both modes, so their events are live. */
  private async record(principal: Principal, type: DomainEventType, eventType: EventTypeView): Promise<void> {
    await this.events.record(liveScopeOf(tenantScope(principal)), { type, data: { eventType } });
  }
}

function summariesOf(eventTypes: readonly EventType[]): Map<string, EventTypeSummary> {
  return new Map(
    eventTypes.map((e) => [
      e.id,
      {
        id: e.id,
        title: e.title,
        slug: e.slug,
        durationMinutes: e.durationMinutes,
        location: e.location,
        reminders: e.reminders,
        attendeeCancellation: e.attendeeCancellation,
        attendeeRescheduling: e.attendeeRescheduling,
      },
    ]),
  );
}
