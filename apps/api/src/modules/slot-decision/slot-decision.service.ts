import { Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import {
  explainRouted,
  explainSeries,
  explainStart,
  occupiedHosts,
  routedQuery,
  type StartQuery,
  type StartVerdict,
} from '@app/availability';
import { AppError, ErrorCode, isExclusionViolation, type TenantScope } from '@app/common';
import { TransactionHost } from '@app/database';
import { AvailabilityService, type HostContactRow } from '../availability/index.js';
import { type EventTypeDetails, EventTypesService } from '../event-types/index.js';
import { type ErasedBookingReader, IdempotencyService, type StoredResponse } from '../idempotency/index.js';
import { HostLocksRepository } from './host-locks.repository.js';
import { HostQueue } from './host-queue.js';

/** The request field a refusal names: the time asked for, or the host a reassignment asked for. */
export type StartField = 'startTime' | 'newStartTime' | 'hostUserId';

export function slotUnavailable(field: StartField, reason: string): AppError {
  return new AppError(ErrorCode.SLOT_UNAVAILABLE, 'The requested time cannot be booked', [{ field, message: reason }]);
}

/**
 * A decision found hosts it had not locked (an event type's hosts, or a booking's, changed between the read that
 * chose the locks and the read under them). Locking them then would break the one lock order and decide on counts
 * read before the lock, so the transaction is rolled back and the write starts again with them (`write`).
 */
export class HostsChanged extends Error {
  constructor(readonly hosts: readonly string[]) {
    super('The hosts to lock changed during the decision');
  }
}

const DECISION_TRIES = 3;

/** How long an event type's hosts, as read for a write's locks, are reused (hostsOf). */
const KNOWN_HOSTS_TTL_MS = 30_000;

/** Whom a decision may give the time to: the event type's hosts and the stand-ins of their absences (locked alike). */
function hostsAndStandIns(query: StartQuery): string[] {
  return [...query.rules.hostUserIds, ...(query.standIns ?? []).map((host) => host.userId)];
}

/** A write that takes host locks: whom it queues for and locks, and the field a refused overlap names. */
export interface HostWrite {
  /** The hosts read before any connection is held (`hostsOf`): queued for here, locked up front in the transaction. */
  hosts: readonly string[];
  field: StartField;
}

/** The same under an Idempotency-Key (api-rules.md § Bookings): the answer is stored with the rows, in their transaction. */
export interface IdempotentHostWrite extends HostWrite {
  key: string | undefined;
  fingerprint: string;
  requestId: string;
  /** How a replay reads the booking the key created once its attendee was erased (IdempotencyService.run): creates only. */
  readErased?: ErasedBookingReader;
}

/** What a decision settled, read under the hosts' locks. */
export interface Decision {
  eventType: EventTypeDetails;
  /** The hosts the rows occupy, the primary first. */
  hostUserIds: string[];
  /** A host has an expired hold still stored: booking-core's HoldRows.clearExpired must run before the insert. */
  expiredHolds: boolean;
  /** Asked for (`withContacts`): the contacts of the hosts the decision could choose, read in its slot read. */
  hostContacts?: readonly HostContactRow[];
}

/** What a series' decision settled, read under the hosts' locks: each occurrence's hosts. */
export interface SeriesHostsDecision extends Omit<Decision, 'hostUserIds'> {
  /** Per occurrence, the hosts its booking occupies, the primary first (a stand-in during its host's absence). */
  occurrenceHosts: string[][];
}

/**
 * The one place where a time is decided for a booking, a reschedule, a series or a hold: queue per host in this
 * process, take the hosts' locks in the database, read what the slot engine needs inside that transaction, decide,
 * and write everything in one round trip at the end, where the exclusion constraint has the last word.
 */
@Injectable()
export class SlotDecisionService {
  constructor(
    private readonly tx: TransactionHost,
    private readonly hostLocks: HostLocksRepository,
    private readonly availability: AvailabilityService,
    private readonly eventTypes: EventTypesService,
    private readonly idempotency: IdempotencyService,
  ) {}

  private readonly hostQueue = new HostQueue();

  /**
   * The hosts last read (or met) for writes on an event type, by organization and event type. They only choose the
   * locks: every decision reads the hosts again under them and restarts with any it did not lock (HostsChanged, which
   * also adds them here), so a stale entry costs at most one restart, and a host removed meanwhile only one lock too
   * many until the entry expires. A write then reads nothing before its transaction.
   */
  private readonly knownHosts = new LRUCache<string, string[]>({ max: 10_000, ttl: KNOWN_HOSTS_TTL_MS, noUpdateTTL: true });

  /** The event type's hosts, before any connection is held: the hosts a write will lock (read, or known: knownHosts). */
  async hostsOf(scope: TenantScope, eventTypeId: string): Promise<string[]> {
    const key = `${scope.organizationId}|${eventTypeId}`;
    const known = this.knownHosts.get(key);
    if (known) return known;
    const hosts = await this.eventTypes.hostUserIdsOf(scope, eventTypeId);
    this.knownHosts.set(key, hosts);
    return hosts;
  }

  /**
   * Every write that takes host locks runs here, each step once: queued in this process for `write.hosts`, one
   * transaction, `work(locked)` (which takes exactly those locks before it reads what it decides on), its writes
   * leaving in one round trip at its end, and the database's refusal of an overlap as 409 naming `write.field`.
   */
  write<T>(scope: TenantScope, write: HostWrite, work: (locked: readonly string[]) => Promise<T>): Promise<T> {
    return this.queued(scope, write.hosts, (locked) => this.together(write.field, () => work(locked)));
  }

  /** `write` under an Idempotency-Key: the key's lock, check and stored answer share the write's transaction. */
  writeOnce(
    scope: TenantScope,
    write: IdempotentHostWrite,
    work: (locked: readonly string[]) => Promise<{ status: number; body: unknown }>,
  ): Promise<StoredResponse> {
    return this.queued(scope, write.hosts, (locked) =>
      this.idempotency.run(
        scope,
        write.key,
        write.fingerprint,
        write.requestId,
        (complete) =>
          this.together(write.field, async () => {
            const answer = await work(locked);
            await complete(answer.status, answer.body);
            return answer;
          }),
        write.readErased,
      ),
    );
  }

  /** The hosts' locks (one sorted statement), before anything is read under them. */
  lock(scope: TenantScope, hostUserIds: readonly string[]): Promise<void> {
    return this.hostLocks.lockHosts(scope, hostUserIds);
  }

  /**
   * Decides `start` on what is read under the `locked` hosts (already held): the slot engine's verdict, keeping
   * `preferred` (the original host of a reschedule) when it is a round-robin host free then; 409 naming `field`
   * when the time cannot be booked; HostsChanged when the event type has hosts outside `locked`. With `routedHosts`
   * (a routing response's, contract § 22) only they may take the time: another host's time is 409 `not_routed`.
   */
  async decide(
    scope: TenantScope,
    eventTypeId: string,
    start: number,
    locked: readonly string[],
    options: {
      field: StartField;
      excludeId?: string;
      preferred?: string;
      withContacts?: boolean;
      routedHosts?: readonly string[] | null;
    },
  ): Promise<Decision> {
    const loaded = await this.availability.loadSlotQuery(
      scope,
      eventTypeId,
      { from: start, to: start },
      { excludeBookingId: options.excludeId, withContacts: options.withContacts },
    );
    this.assertLocked(this.met(scope, eventTypeId, hostsAndStandIns(loaded.query), locked), locked);
    const routed = options.routedHosts ?? null;
    const verdict = routed === null ? this.verdict(loaded.query, start, options.preferred) : explainRouted(loaded.query, start, routed);
    if (!verdict.available) throw slotUnavailable(options.field, verdict.reason);
    return {
      eventType: loaded.eventType,
      hostUserIds: occupiedHosts(routed === null ? loaded.query.rules : routedQuery(loaded.query, routed).rules, verdict),
      expiredHolds: loaded.expiredHolds,
      hostContacts: loaded.hostContacts,
    };
  }

  /**
   * A series (api-rules.md § Seats and series) of `eventType` at `starts` (ascending), under the `locked` hosts: read
   * from the first start to the last, past the booking window; each occurrence judged as a single booking (the window
   * by the first only), round robin's one host for all of them, each occurrence in an absence with a stand-in the
   * stand-in's (locked like a host); 409 with one `details` entry per refused occurrence.
   */
  async decideSeries(
    scope: TenantScope,
    eventType: EventTypeDetails,
    starts: readonly number[],
    locked: readonly string[],
    excludeId: string | null,
  ): Promise<SeriesHostsDecision> {
    const loaded = await this.availability.loadSlotQuery(
      scope,
      eventType.id,
      { from: starts[0], to: starts[starts.length - 1] },
      { excludeBookingId: excludeId ?? undefined, beyondBookingWindow: true },
      eventType,
    );
    this.assertLocked(this.met(scope, eventType.id, hostsAndStandIns(loaded.query), locked), locked);
    const verdict = explainSeries(loaded.query, [...starts]);
    if (!verdict.available) {
      throw new AppError(
        ErrorCode.SLOT_UNAVAILABLE,
        'The requested series cannot be booked',
        verdict.refused.map(({ index, start, reason }) => ({
          field: 'startTime',
          message: `occurrence ${index + 1} at ${new Date(start).toISOString()}: ${reason}`,
        })),
      );
    }
    return {
      eventType: loaded.eventType,
      occurrenceHosts: verdict.hostUserIds.map((hosts) => [...hosts]),
      expiredHolds: loaded.expiredHolds,
    };
  }

  /**
   * `hosts` (read under the locks); those outside `locked` are added to the event type's known hosts for the next write
   * (the entry keeps its expiry: a host removed meanwhile is locked for 30 s at most).
   */
  private met(scope: TenantScope, eventTypeId: string, hosts: readonly string[], locked: readonly string[]): readonly string[] {
    if (hosts.some((host) => !locked.includes(host))) {
      const key = `${scope.organizationId}|${eventTypeId}`;
      this.knownHosts.set(key, [...new Set([...(this.knownHosts.get(key) ?? []), ...hosts])]);
    }
    return hosts;
  }

  /** HostsChanged unless every one of `hosts` is among the `locked`. */
  assertLocked(hosts: readonly string[], locked: readonly string[]): void {
    const newcomers = hosts.filter((host) => !locked.includes(host));
    if (newcomers.length > 0) throw new HostsChanged(newcomers);
  }

  /** The event type as a booking needs it (404 unknown, 409 deleted), without the hosts' data. */
  eventTypeOf(scope: TenantScope, eventTypeId: string): Promise<EventTypeDetails> {
    return this.eventTypes.getForScheduling(scope, eventTypeId);
  }

  /**
   * Runs `work` after the earlier writes of these hosts in this process (HostQueue). When its decision meets hosts
   * outside that set (HostsChanged), its transaction has rolled back and it runs again with them, queued up front.
   */
  private async queued<T>(scope: TenantScope, hosts: readonly string[], work: (locked: readonly string[]) => Promise<T>): Promise<T> {
    let locked = [...new Set(hosts)];
    for (let tries = 1; ; tries++) {
      try {
        const keys = locked.map((host) => `${scope.livemode ? 'live' : 'test'}:${host}`);
        const current = locked;
        return await this.hostQueue.run(keys, () => work(current));
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
   * `work` in one transaction whose rows, every outbox row they cause and the request's audit entry go to the database
   * together, in one round trip before its COMMIT (`TransactionHost.transaction`, batched); the database's own refusal
   * of an overlap (someone else holds the time) surfaces there.
   */
  private async together<T>(field: StartField, work: () => Promise<T>): Promise<T> {
    try {
      return await this.tx.transaction(work, { batched: true });
    } catch (error) {
      if (isExclusionViolation(error)) throw slotUnavailable(field, 'already_booked');
      throw error;
    }
  }

  /** The verdict, keeping `preferred` when it is a round-robin host free at that time; otherwise the engine's own choice. */
  private verdict(query: StartQuery, start: number, preferred?: string): StartVerdict {
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
}
