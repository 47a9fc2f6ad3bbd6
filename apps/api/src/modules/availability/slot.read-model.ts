import { Injectable } from '@nestjs/common';
import type { TenantScope } from '@app/common';
import { TransactionHost } from '@app/database';
import { BUSY_STATUSES_SQL } from '../booking-occupancy/index.js';
import { EVENT_TYPE_ROW_JSON_SQL, type EventTypeJsonRow, type EventTypeRow, eventTypeRowFromJson } from '../event-types/index.js';
import type { KeyCompanion } from '../global-lookups/index.js';
import type { RouteOfResponse } from '../routing-forms/index.js';
import type { OverrideType, StoredScheduleDay, StoredTimeSlot } from '../schedules/index.js';

/**
 * A confirmed or pending booking of a host, or a live hold (`expiresAt` set), in epoch milliseconds, with
 * its own buffers; or the seats of one seated start (`seats` set: its bookings and live holds, one occupancy
 * with the largest of their buffers and the latest end).
 */
export interface BusyRow {
  hostUserId: string;
  eventTypeId: string;
  start: number;
  end: number;
  bufferBeforeMinutes: number;
  bufferAfterMinutes: number;
  expiresAt: number | null;
  seats: { booked: number; holdExpiries: number[] } | null;
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
  /** Busy time overlapping [from, to), epoch milliseconds. */
  from: number;
  to: number;
  /** Override dates, inclusive. */
  startDate: string;
  endDate: string;
  /** A booking (reschedule) or a hold (a booking through it) to leave out. */
  excludeBookingId: string | null;
  /** Holds live at this instant (epoch ms) are busy; expired ones are not, whether or not deleted yet. */
  now: number;
  /** The event type whose latest booking per host is wanted (round robin), or null to skip it. */
  lastBookedFor: string | null;
  /** Starts counted toward the hosts' booking limits lie in [limitsFrom, limitsTo), epoch ms (whole local weeks). */
  limitsFrom: number;
  limitsTo: number;
  /** Read the hosts' names and emails too (a booking's mails, so that it reads nothing after its writes). */
  withContacts?: boolean;
}

/** A host's membership as its mails name it (the team module's `members`). */
export interface HostContactRow {
  userId: string;
  email: string;
  firstName: string | null;
  lastName: string | null;
  /** The member's own locale, and the organization's default (contract § 23). */
  locale: string | null;
  defaultLocale: string;
  /** The zone of the host's schedule (its mails' times are shown there); UTC without one. */
  zone: string;
}

/** A host's booking limits (contract § 17) and the starts they count: its bookings and live holds, each start once. */
export interface HostLimitRow {
  hostUserId: string;
  perDay: number | null;
  perWeek: number | null;
  starts: number[];
  holdExpiries: number[];
}

export interface HostData {
  schedules: HostSchedule[];
  overrides: HostOverride[];
  busy: BusyRow[];
  /** Busy times from the hosts' blocking calendars (api-rules.md § Calendars), both modes. */
  external: { hostUserId: string; start: number; end: number }[];
  /** The hosts' out-of-office entries overlapping [from, to) (contract § 17), both modes. */
  outOfOffice: { hostUserId: string; start: number; end: number; redirectToUserId: string | null }[];
  lastBookedAt: Map<string, number>;
  /** Whether any of these hosts has a hold that expired by `now` and is still stored (a writer deletes it first). */
  expiredHolds: boolean;
  /** The hosts with booking limits, and what they count. */
  limits: HostLimitRow[];
  /** With `withContacts`: each host's membership contact. */
  contacts: HostContactRow[];
}

interface RawHostData {
  schedules: [string, string, StoredScheduleDay[]][];
  overrides: [string, string, OverrideType, StoredTimeSlot[]][];
  busy: [string, string, number, number, number, number, number | null, boolean, number, number[]][];
  external: [string, number, number][];
  out_of_office: [string, number, number, string | null][];
  last_booked: [string, number][];
  expired_holds: boolean;
  limits: [string, { perDay: number | null; perWeek: number | null }, number[], number[]][];
  contacts: [string, string, string | null, string | null, string | null, string, string | null][];
}

/** The cache's tag of an event type's answers and the event type's row (see SlotReadModel.fingerprint). */
export interface Fingerprint {
  readonly fingerprint: string;
  readonly eventType: EventTypeRow | null;
}

interface RawFingerprint {
  fingerprint: string;
  event_type: EventTypeJsonRow | null;
}

type RawRoutedResponse = [RouteOfResponse['route'], number, string | null];

/** The fingerprint's two columns, given SQL for the organization and for the event type's id. */
function fingerprintColumns(organization: string, eventType: string): string {
  return `(SELECT coalesce(sum(v.version), 0)::text
                 FROM availability_versions v
                WHERE v.organization_id = ${organization}
                  AND (v.subject = 'e:' || ${eventType} OR v.subject IN (SELECT 'u:' || h.user_id FROM event_type_hosts h WHERE h.event_type_id = ${eventType})
                       -- The stand-ins of the hosts' absences: their availability is offered in the hosts' place.
                       OR v.subject IN (SELECT 'u:' || x.redirect_to_user_id FROM out_of_office_entries x
                                          JOIN event_type_hosts h ON h.user_id = x.user_id AND h.event_type_id = ${eventType}
                                         WHERE x.organization_id = ${organization} AND x.redirect_to_user_id IS NOT NULL))
              ) AS fingerprint,
              (SELECT ${EVENT_TYPE_ROW_JSON_SQL} FROM event_types et WHERE et.id = ${eventType} AND et.organization_id = ${organization}) AS event_type`;
}

/** $1 the organization, $2 the event type. */
const FINGERPRINT_COLUMNS_SQL = fingerprintColumns('$1', '$2');

function fingerprintOf(row: RawFingerprint): Fingerprint {
  return { fingerprint: row.fingerprint, eventType: row.event_type && eventTypeRowFromJson(row.event_type) };
}

/** A routed request's response column (its route, expiry and booking), given SQL for the organization, mode and id. */
function routedResponseColumn(organization: string, livemode: string, responseId: string): string {
  return `(SELECT json_build_array(r.route, (extract(epoch FROM r.expires_at) * 1000)::bigint, r.booking_id)
                 FROM routing_responses r
                WHERE r.organization_id = ${organization} AND r.livemode = ${livemode} AND r.id = ${responseId}) AS response`;
}

type RawRoutedFingerprint = RawFingerprint & { response: RawRoutedResponse | null };

function routedFingerprintOf(row: RawRoutedFingerprint, responseId: string): RoutedFingerprint {
  const response = row.response;
  return {
    ...fingerprintOf(row),
    response: response && { id: responseId, route: response[0], expiresAt: new Date(response[1]), bookingId: response[2] },
  };
}

/** The fingerprint with a routed request's response (SlotReadModel.routedFingerprint). */
export type RoutedFingerprint = Fingerprint & { response: RouteOfResponse | null };

/**
 * The fingerprint and the event type as the API key's lookup carries them (KeyCompanions): the same columns, for the
 * key's organization, the event type `params` finds in the request and, for a routed request, its routing response in
 * the key's mode (the parameters then are the event type and the response).
 */
export function fingerprintWithKey(params: KeyCompanion<Fingerprint>['params']): KeyCompanion<Fingerprint | RoutedFingerprint> {
  return {
    params,
    columns: (key, [eventType, responseId]) =>
      responseId === undefined
        ? fingerprintColumns(key.organization, eventType)
        : `${fingerprintColumns(key.organization, eventType)}, ${routedResponseColumn(key.organization, key.livemode, responseId)}`,
    parse: (row, [, responseId]) =>
      responseId === undefined
        ? fingerprintOf(row as unknown as RawFingerprint)
        : routedFingerprintOf(row as unknown as RawRoutedFingerprint, responseId),
  };
}

/**
 * Read model of the slot engine's input, owned by the availability module: its own schedules and
 * overrides plus the bookings module's busy time (booking_hosts, bookings) and the calendars module's
 * busy times (calendar_busy_times of blocking calendar_connections) and the out-of-office module's entries
 * (out_of_office_entries), in one statement because it
 * is the hot path of availability, check, booking and reschedule; and the versions of an event type's
 * hosts (event_type_hosts) for the availability cache. Read-only; each table's owner writes it (the
 * versions are written by triggers). Listed in docs/contributing/architecture.md with the other read models.
 */
@Injectable()
export class SlotReadModel {
  constructor(private readonly tx: TransactionHost) {}

  /**
   * The sum of the availability versions of an event type and its current hosts (see
   * AvailabilityVersion), which grows with every committed change to anything their slots are computed
   * from, and the event type's whole row (null when the organization has none by that id; `to_jsonb`, so no
   * column the repository reads can be missing here), in one prepared
   * statement and so one snapshot: read before the rest of an answer's data, it tags that answer for the
   * cache, and a miss needs no second read of the event type.
   */
  async fingerprint(scope: TenantScope, eventTypeId: string): Promise<Fingerprint> {
    const [row] = await this.tx.prepared<RawFingerprint>('availability-fingerprint', `SELECT ${FINGERPRINT_COLUMNS_SQL}`, [
      scope.organizationId,
      eventTypeId,
    ]);
    return fingerprintOf(row);
  }

  /**
   * The fingerprint, the event type and, in the same statement, the routing response a routed request names (contract
   * § 22: its route, expiry and booking; null when the scope has none by that id): a warm routed answer costs one
   * statement as a plain one does. The routing-forms module owns the row and decides what it allows (RoutedBookingsService).
   */
  async routedFingerprint(scope: TenantScope, eventTypeId: string, responseId: string): Promise<RoutedFingerprint> {
    const [row] = await this.tx.prepared<RawRoutedFingerprint>(
      'availability-fingerprint-routed',
      `SELECT ${FINGERPRINT_COLUMNS_SQL}, ${routedResponseColumn('$1', '$3', '$4')}`,
      [scope.organizationId, eventTypeId, scope.livemode, responseId],
    );
    return routedFingerprintOf(row, responseId);
  }

  /**
   * What slot computation needs about these hosts, in one round trip whatever their number: their
   * schedules; their overrides on dates in [startDate, endDate]; every confirmed or pending booking
   * of theirs in the scope's mode whose meeting overlaps [from, to), on any event type, with that booking's
   * own buffers (rows come from booking_hosts, so a collective booking occupies each of its hosts), and
   * likewise every hold live at `now` (the hold's buffers), the seats of one seated start counted as one row;
   * and, when asked, when each was last booked for `eventTypeId`. Sent as JSON with instants as
   * integer milliseconds (bigint renders faster than numeric), which the driver parses in one go
   * instead of row by row. Prepared: planning its six subqueries every time cost more than running them.
   */
  async load(scope: TenantScope, hostUserIds: readonly string[], query: HostDataQuery): Promise<HostData> {
    if (hostUserIds.length === 0)
      return {
        schedules: [],
        overrides: [],
        busy: [],
        external: [],
        outOfOffice: [],
        lastBookedAt: new Map(),
        expiredHolds: false,
        limits: [],
        contacts: [],
      };
    const [row] = await this.tx.prepared<RawHostData>(
      'slot-read-model-load',
      `SELECT
         (SELECT coalesce(json_agg(json_build_array(s.user_id, s.timezone, s.days)), '[]')
            FROM weekly_schedules s
           WHERE s.organization_id = $1 AND s.user_id = ANY($2::text[])) AS schedules,
         (SELECT coalesce(json_agg(json_build_array(o.user_id, o.date, o.type, o.slots)), '[]')
            FROM date_overrides o
           WHERE o.organization_id = $1 AND o.user_id = ANY($2::text[]) AND o.date BETWEEN $3::date AND $4::date) AS overrides,
         (SELECT coalesce(json_agg(json_build_array(
                   g.host_user_id, g.event_type_id, g.start_ms, g.end_ms, g.buffer_before, g.buffer_after, g.expires_ms,
                   g.seated, g.booked, g.hold_expiries)), '[]')
            FROM (SELECT bh.host_user_id, min(bh.event_type_id) AS event_type_id,
                         (extract(epoch FROM min(lower(bh.during))) * 1000)::bigint AS start_ms,
                         (extract(epoch FROM max(upper(bh.during))) * 1000)::bigint AS end_ms,
                         max(coalesce(b.buffer_before_minutes, hd.buffer_before_minutes)) AS buffer_before,
                         max(coalesce(b.buffer_after_minutes, hd.buffer_after_minutes)) AS buffer_after,
                         (extract(epoch FROM max(bh.expires_at)) * 1000)::bigint AS expires_ms,
                         bool_or(bh.seat_group IS NOT NULL) AS seated,
                         count(*) FILTER (WHERE bh.status <> 'held')::int AS booked,
                         coalesce(array_agg((extract(epoch FROM bh.expires_at) * 1000)::bigint) FILTER (WHERE bh.status = 'held'), '{}') AS hold_expiries
                    FROM booking_hosts bh
                    LEFT JOIN bookings b ON b.id = bh.booking_id AND bh.status <> 'held'
                    LEFT JOIN holds hd ON hd.id = bh.booking_id AND bh.status = 'held'
                   WHERE bh.organization_id = $1 AND bh.host_user_id = ANY($2::text[]) AND bh.livemode = $5
                     AND (bh.status IN ${BUSY_STATUSES_SQL} OR (bh.status = 'held' AND bh.expires_at > to_timestamp($10::float8 / 1000)))
                     AND bh.during && tstzrange(to_timestamp($6::float8 / 1000), to_timestamp($7::float8 / 1000), '[)')
                     AND ($8::text IS NULL OR bh.booking_id <> $8::text)
                   -- The seats of one start are one occupancy; every other row is its own.
                   GROUP BY bh.host_user_id, coalesce(bh.seat_group, bh.booking_id)) g) AS busy,
         (SELECT coalesce(json_agg(json_build_array(last.host_user_id, (extract(epoch FROM last.created_at) * 1000)::bigint)), '[]')
            FROM (SELECT bh.host_user_id, max(bh.created_at) AS created_at
                    FROM booking_hosts bh
                   WHERE $9::text IS NOT NULL AND bh.organization_id = $1 AND bh.event_type_id = $9::text
                     AND bh.host_user_id = ANY($2::text[]) AND bh.livemode = $5 AND bh.status IN ${BUSY_STATUSES_SQL}
                     AND ($8::text IS NULL OR bh.booking_id <> $8::text)
                   GROUP BY bh.host_user_id) last) AS last_booked,
         (SELECT coalesce(json_agg(json_build_array(
                   cb.user_id, (extract(epoch FROM cb.starts_at) * 1000)::bigint, (extract(epoch FROM cb.ends_at) * 1000)::bigint)), '[]')
            FROM calendar_busy_times cb
            JOIN calendar_connections cc ON cc.id = cb.connection_id AND cc.blocks_availability
           WHERE cb.organization_id = $1 AND cb.user_id = ANY($2::text[])
             AND cb.ends_at > to_timestamp($6::float8 / 1000) AND cb.starts_at < to_timestamp($7::float8 / 1000)) AS external,
         (SELECT coalesce(json_agg(json_build_array(
                   x.user_id, (extract(epoch FROM x.starts_at) * 1000)::bigint, (extract(epoch FROM x.ends_at) * 1000)::bigint,
                   x.redirect_to_user_id)), '[]')
            FROM out_of_office_entries x
           WHERE x.organization_id = $1 AND x.user_id = ANY($2::text[])
             AND x.ends_at > to_timestamp($6::float8 / 1000) AND x.starts_at < to_timestamp($7::float8 / 1000)) AS out_of_office,
         EXISTS (SELECT 1 FROM booking_hosts bh
                  WHERE bh.status = 'held' AND bh.host_user_id = ANY($2::text[]) AND bh.livemode = $5
                    AND bh.expires_at <= to_timestamp($10::float8 / 1000)) AS expired_holds,
         -- Host booking limits (contract § 17): only members with limits; their starts in both local weeks' reach.
         (SELECT coalesce(json_agg(json_build_array(m.user_id, m.booking_limits, l.starts, l.hold_expiries)), '[]')
            FROM members m
            CROSS JOIN LATERAL (
                  SELECT coalesce(array_agg(DISTINCT (extract(epoch FROM lower(bh.during)) * 1000)::bigint), '{}') AS starts,
                         coalesce(array_agg((extract(epoch FROM bh.expires_at) * 1000)::bigint) FILTER (WHERE bh.status = 'held'), '{}')
                           AS hold_expiries
                    FROM booking_hosts bh
                   WHERE bh.organization_id = $1 AND bh.host_user_id = m.user_id AND bh.livemode = $5
                     AND (bh.status IN ${BUSY_STATUSES_SQL} OR (bh.status = 'held' AND bh.expires_at > to_timestamp($10::float8 / 1000)))
                     AND bh.during && tstzrange(to_timestamp($11::float8 / 1000), to_timestamp($12::float8 / 1000), '[)')
                     AND lower(bh.during) >= to_timestamp($11::float8 / 1000)
                     AND ($8::text IS NULL OR bh.booking_id <> $8::text)) l
           WHERE m.organization_id = $1 AND m.user_id = ANY($2::text[]) AND m.booking_limits IS NOT NULL) AS limits,
         (SELECT coalesce(json_agg(json_build_array(m.user_id, m.email, m.first_name, m.last_name, m.locale, o.default_locale,
                                                    (SELECT s.timezone FROM weekly_schedules s
                                                      WHERE s.organization_id = $1 AND s.user_id = m.user_id))), '[]')
            FROM members m
            JOIN organizations o ON o.id = m.organization_id
           WHERE $13::boolean AND m.organization_id = $1 AND m.user_id = ANY($2::text[])) AS contacts`,
      [
        scope.organizationId,
        hostUserIds,
        query.startDate,
        query.endDate,
        scope.livemode,
        query.from,
        query.to,
        query.excludeBookingId,
        query.lastBookedFor,
        query.now,
        query.limitsFrom,
        query.limitsTo,
        query.withContacts === true,
      ],
    );
    return {
      schedules: row.schedules.map(([userId, timezone, days]) => ({ userId, timezone, days })),
      overrides: row.overrides.map(([userId, date, type, slots]) => ({ userId, date, type, slots })),
      busy: row.busy.map(
        ([hostUserId, eventTypeId, start, end, bufferBeforeMinutes, bufferAfterMinutes, expiresAt, seated, booked, holdExpiries]) => ({
          hostUserId,
          eventTypeId,
          start,
          end,
          bufferBeforeMinutes,
          bufferAfterMinutes,
          expiresAt: seated ? null : expiresAt,
          seats: seated ? { booked, holdExpiries } : null,
        }),
      ),
      external: row.external.map(([hostUserId, start, end]) => ({ hostUserId, start, end })),
      outOfOffice: row.out_of_office.map(([hostUserId, start, end, redirectToUserId]) => ({ hostUserId, start, end, redirectToUserId })),
      lastBookedAt: new Map(row.last_booked),
      expiredHolds: row.expired_holds,
      limits: row.limits.map(([hostUserId, limits, starts, holdExpiries]) => ({
        hostUserId,
        perDay: limits.perDay ?? null,
        perWeek: limits.perWeek ?? null,
        starts,
        holdExpiries,
      })),
      contacts: row.contacts.map(([userId, email, firstName, lastName, locale, defaultLocale, zone]) => ({
        userId,
        email,
        firstName,
        lastName,
        locale,
        defaultLocale,
        zone: zone ?? 'UTC',
      })),
    };
  }
}
