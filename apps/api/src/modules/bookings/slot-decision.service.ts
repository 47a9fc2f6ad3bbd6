import { Injectable } from '@nestjs/common';
import { explainStart, type StartQuery, type StartVerdict } from '@app/availability';
import { AppError, Clock, ErrorCode, isExclusionViolation, type TenantScope } from '@app/common';
import { TransactionHost } from '@app/database';
import { AvailabilityService } from '../availability/index.js';
import { type EventTypeDetails, EventTypesService } from '../event-types/index.js';
import { BookingsRepository } from './bookings.repository.js';
import { HoldsRepository } from './holds.repository.js';
import { HostQueue } from './host-queue.js';

export type StartField = 'startTime' | 'newStartTime';

export function slotUnavailable(field: StartField, reason: string): AppError {
  return new AppError(ErrorCode.SLOT_UNAVAILABLE, 'The requested time cannot be booked', [{ field, message: reason }]);
}

/**
 * A decision found hosts it had not locked (an event type's hosts, or a booking's, changed between the read that
 * chose the locks and the read under them). Locking them then would break the one lock order and decide on counts
 * read before the lock, so the transaction is rolled back and the decision starts again with them (`decide`).
 */
export class HostsChanged extends Error {
  constructor(readonly hosts: readonly string[]) {
    super('The hosts to lock changed during the decision');
  }
}

const DECISION_TRIES = 3;

export interface LockedSlotQuery {
  query: StartQuery;
  eventType: EventTypeDetails;
  /** A host has an expired hold still stored: clearExpiredHolds must run before the insert. */
  expiredHolds: boolean;
}

/**
 * The one place where a time is decided for a booking, a reschedule or a hold: queue per host in this
 * process, take the hosts' locks in the database, read what the slot engine needs inside that
 * transaction, decide, and write everything in one round trip at the end, where the exclusion constraint
 * has the last word.
 */
@Injectable()
export class SlotDecisionService {
  constructor(
    private readonly tx: TransactionHost,
    private readonly bookings: BookingsRepository,
    private readonly holds: HoldsRepository,
    private readonly availability: AvailabilityService,
    private readonly eventTypes: EventTypesService,
    private readonly clock: Clock,
  ) {}

  private readonly hostQueue = new HostQueue();

  /** The event type's hosts, read before any connection is held: the hosts a write will lock. */
  hostsOf(scope: TenantScope, eventTypeId: string): Promise<string[]> {
    return this.eventTypes.hostUserIdsOf(scope, eventTypeId);
  }

  /** Runs `work` after the earlier writes of these hosts in this process (see HostQueue). */
  queued<T>(scope: TenantScope, hostUserIds: readonly string[], work: () => Promise<T>): Promise<T> {
    return this.hostQueue.run(
      hostUserIds.map((host) => `${scope.livemode ? 'live' : 'test'}:${host}`),
      work,
    );
  }

  /**
   * Every write that takes host locks runs here: queued in this process for `hosts`, then `work(hosts)` takes exactly
   * those locks (in one sorted statement) before it reads what it decides on. When the decision meets hosts outside
   * that set (HostsChanged), its transaction has rolled back and it runs again with them, queued and locked up front.
   */
  async decide<T>(scope: TenantScope, hosts: readonly string[], work: (locked: readonly string[]) => Promise<T>): Promise<T> {
    let locked = [...new Set(hosts)];
    for (let tries = 1; ; tries++) {
      try {
        return await this.queued(scope, locked, () => work(locked));
      } catch (error) {
        if (!(error instanceof HostsChanged)) throw error;
        if (tries === DECISION_TRIES) {
          throw new AppError(ErrorCode.SERVICE_UNAVAILABLE, 'The hosts of this event type are changing; try again', undefined, {
            'Retry-After': '1',
          });
        }
        locked = [...new Set([...locked, ...error.hosts])];
      }
    }
  }

  /**
   * Takes the per-host locks, then reads what the slot engine needs in this transaction: whatever
   * the others commit before we hold the locks is seen, nothing can change after.
   */
  async lockAndLoad(
    scope: TenantScope,
    eventTypeId: string,
    start: number,
    /** A booking (reschedule) or hold (a booking through it) whose own time must not count. */
    excludeId: string | null,
    /** The hosts `decide` queued for. */
    hosts: readonly string[],
  ): Promise<LockedSlotQuery> {
    await this.lock(scope, hosts);
    return this.loadLocked(scope, eventTypeId, start, excludeId, hosts);
  }

  /** What the slot engine needs, read under `locked` (already held); HostsChanged when the event type has others. */
  async loadLocked(
    scope: TenantScope,
    eventTypeId: string,
    start: number,
    excludeId: string | null,
    locked: readonly string[],
  ): Promise<LockedSlotQuery> {
    const loaded = await this.availability.loadSlotQuery(
      scope,
      eventTypeId,
      { from: start, to: start },
      { excludeBookingId: excludeId ?? undefined },
    );
    this.assertLocked(loaded.query.rules.hostUserIds, locked);
    return { query: loaded.query, eventType: loaded.eventType, expiredHolds: loaded.expiredHolds };
  }

  /** HostsChanged unless every one of `hosts` is among the `locked`. */
  assertLocked(hosts: readonly string[], locked: readonly string[]): void {
    const newcomers = hosts.filter((host) => !locked.includes(host));
    if (newcomers.length > 0) throw new HostsChanged(newcomers);
  }

  /**
   * A series (api-rules.md § Seats and series): the hosts' locks, then the event type, from which `plan` derives the
   * occurrences' starts (ascending), then everything the slot engine needs from the first start to the last,
   * past the booking window; all in this transaction, under the locks.
   */
  async lockAndLoadSeries(
    scope: TenantScope,
    eventTypeId: string,
    hosts: readonly string[],
    excludeId: string | null,
    plan: (eventType: EventTypeDetails) => number[],
  ): Promise<LockedSlotQuery & { starts: number[] }> {
    await this.lock(scope, hosts);
    const eventType = await this.eventTypes.getForScheduling(scope, eventTypeId);
    const starts = plan(eventType);
    const loaded = await this.availability.loadSlotQuery(
      scope,
      eventTypeId,
      { from: starts[0], to: starts[starts.length - 1] },
      { excludeBookingId: excludeId ?? undefined, beyondBookingWindow: true },
      eventType,
    );
    this.assertLocked(loaded.query.rules.hostUserIds, hosts);
    return { query: loaded.query, eventType: loaded.eventType, expiredHolds: loaded.expiredHolds, starts };
  }

  /** The hosts' locks alone, for a write that needs no slot decision (a booking taking its hold's place). */
  lock(scope: TenantScope, hostUserIds: readonly string[]): Promise<void> {
    return this.bookings.lockHosts(scope, hostUserIds);
  }

  /** The event type as a booking needs it (404 unknown, 409 deleted), without the hosts' data. */
  eventTypeOf(scope: TenantScope, eventTypeId: string): Promise<EventTypeDetails> {
    return this.eventTypes.getForScheduling(scope, eventTypeId);
  }

  /**
   * The verdict, keeping `preferred` (the original host of a reschedule, the host of a hold) when it is a
   * round-robin host free at that time; otherwise the engine's own choice.
   */
  verdict(query: StartQuery, start: number, preferred?: string): StartVerdict {
    if (preferred !== undefined && query.rules.schedulingType === 'round_robin' && query.hosts.some((h) => h.userId === preferred)) {
      const onlyPreferred: StartQuery = {
        ...query,
        rules: { ...query.rules, schedulingType: 'one_on_one', hostUserIds: [preferred] },
        hosts: query.hosts.filter((h) => h.userId === preferred),
      };
      const kept = explainStart(onlyPreferred, start);
      if (kept.available) return kept;
    }
    return explainStart(query, start);
  }

  /** Collective bookings and holds occupy every host, the first being the primary; others the chosen one. */
  occupiedHosts(query: StartQuery, chosen: string): string[] {
    return query.rules.schedulingType === 'collective' ? [...new Set(query.rules.hostUserIds)] : [chosen];
  }

  /**
   * Before inserting rows for these hosts: deletes their holds that have expired (they block nothing any
   * more, but the constraint cannot tell), in the same batch, under the same locks; only when the slot
   * query, read under those locks, saw one.
   */
  async clearExpiredHolds(scope: TenantScope, loaded: LockedSlotQuery, hostUserIds: readonly string[]): Promise<void> {
    if (loaded.expiredHolds) await this.holds.clearExpired(scope, hostUserIds, this.clock.now());
  }

  /**
   * The rows and every outbox row they cause go to the database together, in one round trip at the end
   * of `work` (`TransactionHost.batched`); the database's own refusal of an overlap (someone else holds the
   * time) surfaces there.
   */
  async writingTogether<T>(field: StartField, work: () => Promise<T>): Promise<T> {
    try {
      return await this.tx.batched(work);
    } catch (error) {
      if (isExclusionViolation(error)) throw slotUnavailable(field, 'already_booked');
      throw error;
    }
  }
}
