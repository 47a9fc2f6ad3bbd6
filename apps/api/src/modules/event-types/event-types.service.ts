import { Injectable } from '@nestjs/common';
import {
  AppError,
  Clock,
  ErrorCode,
  isUniqueViolation,
  liveScopeOf,
  PageRequest,
  pageMeta,
  Principal,
  tenantScope,
  type ScopedIds,
  type TenantScope,
} from '@app/common';
import { TransactionHost } from '@app/database';
import { AuditTrail, changesBetween } from '../audit/index.js';
import { BookingCounts } from '../booking-occupancy/index.js';
import { DomainEvents, type DomainEventType } from '../outbox/index.js';
import {
  CreateEventTypeDto,
  EventTypeListResponse,
  EventTypeResponse,
  EventTypeView,
  ListEventTypesQueryDto,
  UpdateEventTypeDto,
} from './dto/event-type.dto.js';
import { assertHostCount, assertSeatsOrRecurrence, changesOf, minutesOf, newEventType, slugTaken } from './event-type-fields.js';
import { EventTypeHostsService } from './event-type-hosts.service.js';
import { details, type EventTypeDetails, type EventTypeSummary, inactive, summariesOf, view } from './event-type-views.js';
import { EventTypesRepository, SLUG_ACTIVE_KEY } from './event-types.repository.js';
import type { Reminder } from './reminders.js';

/**
 * Told inside the transaction that changed the times of an event type's reminders, after its row is locked: bookings
 * keeps the due reminders of the event type's bookings in step (api-rules.md § Reminders).
 */
export type RemindersChanged = (scope: TenantScope, eventTypeId: string, reminders: readonly Reminder[]) => Promise<void>;

@Injectable()
export class EventTypesService {
  private readonly remindersChanged: RemindersChanged[] = [];

  constructor(
    private readonly audit: AuditTrail,
    private readonly tx: TransactionHost,
    private readonly repository: EventTypesRepository,
    private readonly hosts: EventTypeHostsService,
    private readonly bookingCounts: BookingCounts,
    private readonly events: DomainEvents,
    private readonly clock: Clock,
  ) {}

  async create(principal: Principal, dto: CreateEventTypeDto): Promise<EventTypeResponse> {
    const schedulingType = dto.schedulingType ?? 'one_on_one';
    const hostUserIds = dto.hostUserIds ?? [principal.userId];
    assertHostCount(schedulingType, hostUserIds);
    assertSeatsOrRecurrence({ seatsPerSlot: dto.seatsPerSlot ?? null, recurrence: dto.recurrence ?? null });
    const eventType = newEventType(principal, dto, schedulingType, this.clock.now());
    try {
      return await this.tx.transaction(async () => {
        await this.repository.insert(tenantScope(principal), eventType);
        await this.hosts.replace(principal, eventType.id, hostUserIds, dto.hostUserIds === undefined);
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
        const changes = changesOf(current, dto);
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
          if (dto.hostUserIds !== undefined) await this.hosts.replace(principal, id, hostUserIds, false);
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

  private async count(scope: TenantScope, id: string): Promise<number> {
    return (await this.bookingCounts.activeByEventType(scope, [id])).get(id) ?? 0;
  }

  /** Event type changes are organization data, shared by both modes, so their events are live. */
  private async record(principal: Principal, type: DomainEventType, eventType: EventTypeView): Promise<void> {
    await this.events.record(liveScopeOf(tenantScope(principal)), { type, data: { eventType } });
  }
}
