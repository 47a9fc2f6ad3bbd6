import { Injectable } from '@nestjs/common';
import {
  addDays,
  computeSlots,
  dayStartInstant,
  explainRouted,
  explainStart,
  formatInstantsInZone,
  LATEST_INSTANT,
  parseInputTimestamp,
  routedQuery,
  slotsValidUntil,
  type StartQuery,
} from '@app/availability';
import fastJson from 'fast-json-stringify';
import { AppError, Clock, Principal, daysBetween, isIanaTimeZone, looksLikeId, tenantScope, type TenantScope } from '@app/common';
import { ReplicaReads } from '@app/database';
import { type EventTypeDetails, EventTypesService, schedulingDetailsOf } from '../event-types/index.js';
import { companionOf, KeyCompanions } from '../global-lookups/index.js';
import { RoutedBookingsService, type Routing } from '../routing-forms/index.js';
import { AvailabilityCache, type ContentEncoding, ownBytes } from './availability-cache.service.js';
import { hostsOf, rulesOf } from './host-availability.js';
import { type Fingerprint, fingerprintWithKey, type HostContactRow, type RoutedFingerprint, SlotReadModel } from './slot.read-model.js';
import { CheckQueryDto, CheckResponse, MAX_RANGE_DAYS, SlotsQueryDto, SlotsResponse } from './dto/slots.dto.js';

const DAY_MS = 86_400_000;
/**
 * How far around the requested starts busy time and overrides are read. A booking can block a start
 * from up to duration + 2 × 720 buffer minutes away (36 h), and a host's local date reaches at most
 * about a day past any instant in it, so the per-date booking counts need the whole of that date too.
 */
const LOAD_MARGIN_MS = 2 * DAY_MS;
/** How far around the requested starts the hosts' booking limits count: the whole local Monday-to-Sunday week of each. */
const LIMITS_MARGIN_MS = 8 * DAY_MS;

/** The body of GET /availability, compiled once from its schema (SlotsResponse). */
const serializeSlots = fastJson({
  type: 'object',
  properties: {
    slots: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          start: { type: 'string' },
          end: { type: 'string' },
          hostUserId: { type: 'string' },
          seatsRemaining: { type: 'integer' },
        },
        required: ['start', 'end', 'hostUserId'],
      },
    },
    timezone: { type: 'string' },
  },
  required: ['slots', 'timezone'],
}) as (response: SlotsResponse) => string;

/** The body of GET /public/availability: the same slots without host ids (an attendee sees no host). */
const serializePublicSlots = fastJson({
  type: 'object',
  properties: {
    slots: {
      type: 'array',
      items: {
        type: 'object',
        properties: { start: { type: 'string' }, end: { type: 'string' }, seatsRemaining: { type: 'integer' } },
        required: ['start', 'end'],
      },
    },
    timezone: { type: 'string' },
  },
  required: ['slots', 'timezone'],
}) as (response: SlotsResponse) => string;

/** Who an answer is for: a member or backend (`hosts`, with host ids) or an attendee's page (`attendee`). */
export type SlotsView = 'hosts' | 'attendee';

/** A serialized answer, whether the cache gave it, and its compressed copies (kept with the cached answer). */
export interface SlotsAnswer {
  /** UTF-8 JSON (CachedAnswer.body). */
  body: Buffer;
  cache: 'hit' | 'miss';
  compressed: Partial<Record<ContentEncoding, Buffer>>;
}

/** Zones Temporal accepted; checking costs a Temporal call, and every request names one. */
const validZones = new Set<string>();

/** Candidate slot starts, both ends included, as epoch milliseconds. */
export interface SlotWindow {
  readonly from: number;
  readonly to: number;
}

export interface LoadSlotQueryOptions {
  /** Leave this booking (reschedule) or hold (a booking through it) out of busy time, counts and round-robin order. */
  readonly excludeBookingId?: string;
  /** Read past the booking window too (a series: the window applies to its first occurrence only). */
  readonly beyondBookingWindow?: boolean;
  /** Read the hosts' (and stand-ins') contacts in the same statement (a booking's mails). */
  readonly withContacts?: boolean;
}

export interface LoadedSlotQuery {
  readonly eventType: EventTypeDetails;
  /** Whether a host has an expired hold still stored: a writer must delete it before inserting (HoldsRepository.clearExpired). */
  readonly expiredHolds: boolean;
  /** For explainStart as is, or computeSlots with a range added. */
  readonly query: StartQuery;
  /** With `withContacts`, when anything was read: the contacts of the hosts and stand-ins read. */
  readonly hostContacts?: readonly HostContactRow[];
}

function isoDateOf(instant: number): string {
  return new Date(instant).toISOString().slice(0, 10);
}

/**
 * GET /availability's first read, the fingerprint with the event type (and a routed request's response), as the API
 * key's lookup carries it (KeyCompanions): a warm answer is then one statement. The routes name it in their Access rule
 * and pass fingerprintFromKey's value to slots().
 */
export const FINGERPRINT_WITH_KEY = 'availability-fingerprint';

/** The fingerprint's parameters: the event type, and the routing response of a routed request. */
function fingerprintKeyParams(query: { eventTypeId: string; routingResponseId?: string }): string[] {
  return query.routingResponseId === undefined ? [query.eventTypeId] : [query.eventTypeId, query.routingResponseId];
}

/** The same from a raw query, when its ids are well formed (else the route reads for itself, after validation). */
function fingerprintParams(query: unknown): string[] | null {
  if (typeof query !== 'object' || query === null) return null;
  const { eventTypeId, routingResponseId } = query as Record<string, unknown>;
  if (typeof eventTypeId !== 'string' || !looksLikeId(eventTypeId, 'evt')) return null;
  if (routingResponseId !== undefined && (typeof routingResponseId !== 'string' || !looksLikeId(routingResponseId, 'rtr'))) return null;
  return fingerprintKeyParams({ eventTypeId, routingResponseId });
}

/** What the key's lookup read for this request's validated query, if it carried the fingerprint (FINGERPRINT_WITH_KEY). */
export function fingerprintFromKey(request: object, query: SlotsQueryDto): KeyFingerprint | undefined {
  return companionOf<KeyFingerprint>(request, FINGERPRINT_WITH_KEY, fingerprintKeyParams(query));
}

/** The fingerprint as the key's lookup read it: with the routing response when the request named one. */
export type KeyFingerprint = Fingerprint | RoutedFingerprint;

@Injectable()
export class AvailabilityService {
  constructor(
    private readonly slotReadModel: SlotReadModel,
    private readonly eventTypes: EventTypesService,
    private readonly clock: Clock,
    private readonly cache: AvailabilityCache,
    private readonly routed: RoutedBookingsService,
    private readonly replicaReads: ReplicaReads,
    companions: KeyCompanions,
  ) {
    // Not without the cache (nothing to validate), nor where a standby would answer the fingerprint (the key's lookup
    // reads the primary, and a miss must read its data where its tag was read).
    const params = (request: { query?: unknown }) =>
      this.cache.enabled && !this.replicaReads.enabled ? fingerprintParams(request.query) : null;
    companions.register(FINGERPRINT_WITH_KEY, fingerprintWithKey(params));
  }

  /**
   * The answer of GET /availability, serialized. A cached answer is used while its fingerprint (read
   * here, first) is unchanged and the clock is before its `validUntil`; otherwise it is computed from
   * data read after that fingerprint, so an entry is never newer-tagged than what it holds. `withKey`: that first read,
   * when the API key's lookup made it for this very query (FINGERPRINT_WITH_KEY).
   */
  slots(principal: Principal, query: SlotsQueryDto, view: SlotsView = 'hosts', withKey?: KeyFingerprint): Promise<SlotsAnswer> {
    // A read the client acts on later, never a decision (a booking decides again on the primary): a standby may answer.
    return this.replicaReads.run(principal.organizationId, () => this.readSlots(principal, query, view, withKey));
  }

  private async readSlots(principal: Principal, query: SlotsQueryDto, view: SlotsView, withKey?: KeyFingerprint): Promise<SlotsAnswer> {
    const timeZone = this.timeZone(query.timezone);
    const span = daysBetween(query.start, query.end);
    if (span < 0) throw AppError.validation('end', 'end must not be before start');
    if (span > MAX_RANGE_DAYS)
      throw AppError.validation('end', `at most ${MAX_RANGE_DAYS + 1} dates per request (end − start ≤ ${MAX_RANGE_DAYS} days)`);
    const scope = tenantScope(principal);
    // With the cache: the fingerprint and the event type in one statement, and a routed request's response in that same
    // statement (the answer is the routed hosts', contract § 22); a hit needs nothing else.
    const { read, routing } = (withKey && this.composedRead(withKey, query)) ?? (await this.fingerprintOf(scope, query));
    const key =
      this.cache.key(scope, query.eventTypeId, query.start, query.end, timeZone) +
      (view === 'attendee' ? '|attendee' : '') +
      (routing?.hostUserIds ? `|routed:${[...routing.hostUserIds].sort().join(',')}` : '');
    const fingerprint = read?.fingerprint ?? '';
    const cached = read ? this.cache.get(key, this.clock.now().getTime()) : undefined;
    if (cached?.fingerprint === fingerprint) return { body: cached.body, cache: 'hit', compressed: cached.compressed };

    const window = { from: dayStartInstant(query.start, timeZone), to: dayStartInstant(addDays(query.end, 1), timeZone) - 1 };
    const eventType = read ? schedulingDetailsOf(read.eventType) : undefined;
    const loaded = await this.loadSlotQuery(scope, query.eventTypeId, window, {}, eventType);
    const routedHosts = routing?.hostUserIds ?? null;
    const startQuery = routedHosts === null ? loaded.query : routedQuery(loaded.query, routedHosts);
    const slotQuery = { ...startQuery, range: { startDate: query.start, endDate: query.end, timeZone } };
    const slots = computeSlots(slotQuery);
    const texts = formatInstantsInZone(
      slots.flatMap((slot) => [slot.start, slot.end]),
      timeZone,
    );
    const json = (view === 'attendee' ? serializePublicSlots : serializeSlots)({
      slots: slots.map((slot, index) => ({
        start: texts[2 * index],
        end: texts[2 * index + 1],
        hostUserId: slot.hostUserId,
        seatsRemaining: slot.seatsRemaining,
      })),
      timezone: timeZone,
    });
    const body = ownBytes(Buffer.from(json));
    const compressed = {};
    if (this.cache.enabled) this.cache.set(key, { body, fingerprint, validUntil: slotsValidUntil(slotQuery, slots), compressed });
    return { body, cache: 'miss', compressed };
  }

  check(principal: Principal, query: CheckQueryDto): Promise<CheckResponse> {
    return this.replicaReads.run(principal.organizationId, () => this.readCheck(principal, query));
  }

  private async readCheck(principal: Principal, query: CheckQueryDto): Promise<CheckResponse> {
    const timeZone = this.timeZone(query.timezone);
    const start = parseInputTimestamp(query.startTime, timeZone);
    if (start === null) throw AppError.validation('startTime', 'startTime must be an ISO 8601 timestamp such as 2027-03-01T09:00:00');
    const scope = tenantScope(principal);
    const routing = await this.routingOf(scope, query);
    const loaded = await this.loadSlotQuery(scope, query.eventTypeId, { from: start, to: start });
    const routedHosts = routing?.hostUserIds ?? null;
    const verdict = routedHosts === null ? explainStart(loaded.query, start) : explainRouted(loaded.query, start, routedHosts);
    return verdict.available ? { available: true } : { available: false, reason: verdict.reason };
  }

  /**
   * Everything the slot engine needs for starts in `window`, in two queries whatever the number of
   * hosts or days: the event type with its hosts, then the hosts' schedules, their overrides near
   * the window, their busy bookings in the scope's mode (any event type, with each booking's buffers; the
   * per-date counts of this event type come from the same rows) and, for round robin, when each host
   * was last booked for this event type.
   *
   * Unknown or foreign event type → 404 NOT_FOUND; deleted → 409 EVENT_TYPE_INACTIVE.
   */
  async loadSlotQuery(
    scope: TenantScope,
    eventTypeId: string,
    window: SlotWindow,
    options: LoadSlotQueryOptions = {},
    /** The event type when the caller has just read it. */
    preloaded?: EventTypeDetails,
  ): Promise<LoadedSlotQuery> {
    const { excludeBookingId = null, beyondBookingWindow = false, withContacts = false } = options;
    const eventType = preloaded ?? (await this.eventTypes.getForScheduling(scope, eventTypeId));
    const rules = rulesOf(eventType);
    const now = this.clock.now().getTime();
    // Starts before now or past the booking window are refused on time alone; nothing to read for them.
    const from = Math.max(window.from, now);
    const windowEnd = beyondBookingWindow ? window.to : Math.min(window.to, now + rules.bookingWindowDays * DAY_MS);
    // A series asked for near year 9999 runs past the last storable instant: nothing is stored there, and a query
    // naming such a time fails, so the read stops short of it (the engine refuses those starts: outside any window).
    const to = Math.min(windowEnd, LATEST_INSTANT - LOAD_MARGIN_MS);
    const hostIds = rules.schedulingType === 'one_on_one' ? rules.hostUserIds.slice(0, 1) : [...rules.hostUserIds];
    if (from > to || hostIds.length === 0) return { eventType, query: { rules, now, hosts: [] }, expiredHolds: false };

    const hostQuery = {
      from: from - LOAD_MARGIN_MS,
      to: to + LOAD_MARGIN_MS,
      startDate: isoDateOf(from - LOAD_MARGIN_MS),
      endDate: isoDateOf(to + LOAD_MARGIN_MS),
      excludeBookingId,
      now,
      lastBookedFor: rules.schedulingType === 'round_robin' ? eventTypeId : null,
      limitsFrom: from - LIMITS_MARGIN_MS,
      limitsTo: to + LIMITS_MARGIN_MS,
      withContacts,
    };
    const data = await this.slotReadModel.load(scope, hostIds, hostQuery);
    const hosts = hostsOf(hostIds, eventTypeId, rules, data);
    // The stand-ins of the hosts' absences in the window who are no hosts themselves: one more read, only when there are any.
    const standInIds = [...new Set(data.outOfOffice.flatMap((entry) => (entry.redirectToUserId ? [entry.redirectToUserId] : [])))].filter(
      (userId) => !hostIds.includes(userId),
    );
    const hostContacts = withContacts ? data.contacts : undefined;
    if (standInIds.length === 0) return { eventType, query: { rules, now, hosts }, expiredHolds: data.expiredHolds, hostContacts };
    const standInData = await this.slotReadModel.load(scope, standInIds, { ...hostQuery, lastBookedFor: null });
    const standIns = hostsOf(standInIds, eventTypeId, rules, standInData);
    return {
      eventType,
      query: { rules, now, hosts, standIns },
      expiredHolds: data.expiredHolds || standInData.expiredHolds,
      hostContacts: withContacts ? [...data.contacts, ...standInData.contacts] : undefined,
    };
  }

  /** What a cached answer is checked against, with the routing of a routed request (see slots()). */
  /** The same from what the key's lookup read for this query (fingerprintFromKey); undefined when it cannot serve. */
  private composedRead(withKey: KeyFingerprint, query: SlotsQueryDto): { read: Fingerprint; routing: Routing | null } | undefined {
    if (!this.cache.enabled) return undefined;
    if (query.routingResponseId === undefined) return { read: withKey, routing: null };
    if (!('response' in withKey)) return undefined;
    return { read: withKey, routing: this.routed.fromRead(withKey.response, query.routingResponseId, query.eventTypeId) };
  }

  private async fingerprintOf(scope: TenantScope, query: SlotsQueryDto): Promise<{ read: Fingerprint | null; routing: Routing | null }> {
    if (!this.cache.enabled) return { read: null, routing: await this.routingOf(scope, query) };
    if (query.routingResponseId === undefined)
      return { read: await this.slotReadModel.fingerprint(scope, query.eventTypeId), routing: null };
    const read = await this.slotReadModel.routedFingerprint(scope, query.eventTypeId, query.routingResponseId);
    return { read, routing: this.routed.fromRead(read.response, query.routingResponseId, query.eventTypeId) };
  }

  /** The routing response a request names, checked for its event type (400 naming routingResponseId), or null. */
  private routingOf(scope: TenantScope, query: { eventTypeId: string; routingResponseId?: string }): Promise<Routing | null> {
    if (query.routingResponseId === undefined) return Promise.resolve(null);
    return this.routed.forAvailability(scope, query.routingResponseId, query.eventTypeId);
  }

  /**
   * The DTO checked the name with Intl; the engine works with Temporal, so both must know the zone.
   * Only known-good names are remembered, which bounds the cache by the zone database.
   */
  private timeZone(timeZone: string | undefined): string {
    const zone = timeZone ?? 'UTC';
    if (validZones.has(zone)) return zone;
    if (!isIanaTimeZone(zone)) throw AppError.validation('timezone', 'timezone must be an IANA time zone such as Europe/Berlin');
    validZones.add(zone);
    return zone;
  }
}
