import type { HostLimitLoad } from './host-limits.js';

/** Instants are epoch milliseconds throughout; dates are ISO 'YYYY-MM-DD'; times are 'HH:MM'. */

export type SchedulingType = 'one_on_one' | 'round_robin' | 'collective';

export interface EventTypeRules {
  readonly durationMinutes: number;
  /** null: step by the duration. */
  readonly slotIntervalMinutes: number | null;
  readonly bufferBeforeMinutes: number;
  readonly bufferAfterMinutes: number;
  /** May be fractional. */
  readonly minimumNoticeHours: number;
  readonly bookingWindowDays: number;
  /** null: no cap. */
  readonly maxBookingsPerDay: number | null;
  readonly schedulingType: SchedulingType;
  /** Ordered: round robin breaks ties by it and collective reports the first host. */
  readonly hostUserIds: readonly string[];
  /** Attendees per start (api-rules.md § Seats and series); null or absent: one booking per slot. */
  readonly seatsPerSlot?: number | null;
}

/** Local wall-clock window; endTime may be '24:00' (the next local midnight). */
export interface TimeWindow {
  readonly startTime: string;
  readonly endTime: string;
}

export interface WeeklyDay {
  /** 0 = Sunday … 6 = Saturday. */
  readonly dayOfWeek: number;
  readonly windows: readonly TimeWindow[];
}

export interface WeeklySchedule {
  /** IANA zone the windows are written in. */
  readonly timezone: string;
  /** Days not listed are unavailable. */
  readonly days: readonly WeeklyDay[];
}

export type DateOverride =
  | { readonly type: 'unavailable' }
  /** Replaces that date's weekly windows. */
  | { readonly type: 'custom'; readonly windows: readonly TimeWindow[] };

/** A confirmed or pending booking of the host (any event type), with that booking's own buffers. */
export interface BusyInterval {
  readonly start: number;
  readonly end: number;
  readonly bufferBeforeMinutes: number;
  readonly bufferAfterMinutes: number;
}

/**
 * A live hold of the host (api-rules.md § Browser booking): blocks like a booking, with the event type's buffers, until
 * `expiresAt` (epoch ms), after which it blocks nothing. Callers pass only holds that are live at `now`.
 */
export interface HeldInterval extends BusyInterval {
  readonly expiresAt: number;
}

/**
 * The seats taken at one start of this (seated) event type with this host: its confirmed or pending bookings
 * and live holds there, which share one occupancy. The start stays free for this event type while seats
 * remain; every other start it overlaps is blocked by it, as by one booking (with the largest of its buffers).
 */
export interface SeatedStart extends BusyInterval {
  /** Confirmed or pending bookings at this start. */
  readonly booked: number;
  /** Expiry (epoch ms) of each live hold at this start; each takes a seat until then. */
  readonly holdExpiries: readonly number[];
}

/** A time the host is busy in one of its own calendars: blocks like a booking with no buffers of its own. */
export interface ExternalBusy {
  readonly start: number;
  readonly end: number;
}

/** An absence of the host, [start, end) in epoch ms. */
export interface OutOfOfficeInterval {
  readonly start: number;
  readonly end: number;
  /**
   * The member who takes the host's place during the absence: a start whose meeting overlaps it is judged on that
   * member's availability (`SlotQuery.standIns`) and given to that member. Absent or null: nobody does.
   */
  readonly redirectToUserId?: string | null;
}

export interface HostAvailability {
  readonly userId: string;
  /** null: the host has no availability at all. */
  readonly schedule: WeeklySchedule | null;
  /** Keyed by local date in the schedule's zone. */
  readonly overrides: Readonly<Record<string, DateOverride>>;
  readonly busy: readonly BusyInterval[];
  /** Live holds of the host (any event type); none when absent. */
  readonly held?: readonly HeldInterval[];
  /** Seats taken at starts of this event type when it is seated; busy/held then leave them out. */
  readonly seats?: readonly SeatedStart[];
  /** Busy times read from the host's connected calendars (api-rules.md § Calendars); none when absent. */
  readonly externalBusy?: readonly ExternalBusy[];
  /**
   * The host's out-of-office entries (api-rules.md § Out of office): no meeting of the host may overlap one, like an
   * unavailable date override but to the millisecond and in no zone in particular; buffers do not reach into them.
   */
  readonly outOfOffice?: readonly OutOfOfficeInterval[];
  /** This event type's confirmed/pending bookings per local date of the schedule's zone; see countByLocalDate. */
  readonly bookingsPerDate: Readonly<Record<string, number>>;
  /** Creation time of the host's latest confirmed/pending booking of this event type. */
  readonly lastBookedAt: number | null;
  /** The host's booking limits across event types and what they count (contract § 17); none when absent. */
  readonly bookingLimits?: HostLimitLoad | null;
}

/** Inclusive local dates in `timeZone`, which may differ from every host's zone. */
export interface DateRange {
  readonly startDate: string;
  readonly endDate: string;
  readonly timeZone: string;
}

export interface SlotQuery {
  readonly rules: EventTypeRules;
  readonly hosts: readonly HostAvailability[];
  /** The availability of the members hosts' absences redirect to (who need not be hosts); none when absent. */
  readonly standIns?: readonly HostAvailability[];
  readonly now: number;
  readonly range: DateRange;
}

export type StartQuery = Omit<SlotQuery, 'range'>;

export interface Slot {
  readonly start: number;
  readonly end: number;
  readonly hostUserId: string;
  /** Seated event types only: seats still free at this start (collective: at every host). */
  readonly seatsRemaining?: number;
}

/** In priority order: the first that applies is reported. */
export const UNAVAILABLE_REASONS = [
  'in_the_past',
  'minimum_notice',
  'outside_booking_window',
  'outside_availability',
  'out_of_office',
  'already_booked',
  'held',
  'calendar_conflict',
  'daily_limit_reached',
  'host_limit_reached',
  // Never the engine's own: a routed request's (contract § 22) when another host than the routed ones could take the time.
  'not_routed',
] as const;

export type UnavailableReason = (typeof UNAVAILABLE_REASONS)[number];

export type StartVerdict =
  | {
      readonly available: true;
      readonly hostUserId: string;
      readonly seatsRemaining?: number;
      /** Collective only: every host the booking occupies, in hostUserIds order, a stand-in in an absent host's place. */
      readonly hostUserIds?: readonly string[];
    }
  | { readonly available: false; readonly reason: UnavailableReason };
