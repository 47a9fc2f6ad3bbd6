import { BusyIndex } from './busy.js';
import { SeatIndex } from './seats.js';
import { countLoadWithin, limitReachedOn, mondayOf } from './host-limits.js';
import { dayOfWeek, epochDayToIsoDate, parseWallTime } from './calendar.js';
import type { BusyInterval, DateOverride, EventTypeRules, ExternalBusy, HostAvailability, TimeWindow, WeeklySchedule } from './types.js';
import { ZoneDays } from './zone-days.js';

export interface InstantWindow {
  readonly start: number;
  readonly end: number;
}

export interface HostDay {
  readonly date: string;
  /** Sorted by start; empty windows (e.g. both ends in one DST gap) are dropped. */
  readonly windows: readonly InstantWindow[];
  readonly capReached: boolean;
  /** The host's own booking limits (contract § 17) leave no new start on this date. */
  readonly limitReached: boolean;
}

/** One host made ready for a span of instants: its local days as instant windows, and its busy index. */
export interface PreparedHost {
  readonly userId: string;
  readonly lastBookedAt: number | null;
  readonly days: readonly HostDay[];
  readonly zoneDays: ZoneDays | null;
  readonly busy: BusyIndex;
  /** The host's live holds, blocking like bookings (reason `held`). */
  readonly held: BusyIndex;
  /** The host's calendar busy times, padded by the event type's buffers only. */
  readonly calendarBusy: BusyIndex;
  /** The host's seated starts of this event type (api-rules.md § Seats and series). */
  readonly seats: SeatIndex;
  /** The host's out-of-office entries: a start is blocked when its meeting (no buffers) overlaps one. */
  readonly outOfOffice: BusyIndex;
  /** The entries with a stand-in (`redirectToUserId`), by start. */
  readonly redirects: readonly { readonly start: number; readonly end: number; readonly userId: string }[];
}

/** Local windows as [start, end) in ms since local midnight; end may be a full day. */
type WallWindow = readonly [number, number];

/** Zone tables are shared by hosts in the same zone within one computation. */
export type ZoneDaysCache = Map<string, ZoneDays>;

/**
 * Prepares the host for slot starts in [from, to]. Only the host's local dates containing those
 * instants matter: a window of date D lies between the starts of D and D + 1.
 */
export function prepareHost(
  userId: string,
  host: HostAvailability | undefined,
  rules: EventTypeRules,
  from: number,
  to: number,
  zoneCache: ZoneDaysCache,
): PreparedHost {
  const schedule = host?.schedule ?? null;
  const lastBookedAt = host?.lastBookedAt ?? null;
  if (host === undefined || schedule === null) {
    const none = BusyIndex.build([], rules, from, to);
    const noSeats = SeatIndex.build([], rules, from, to);
    return {
      userId,
      lastBookedAt,
      days: [],
      zoneDays: null,
      busy: none,
      held: none,
      calendarBusy: none,
      seats: noSeats,
      outOfOffice: none,
      // Without hours of its own the host is still stood in for during its absences.
      redirects: host === undefined ? [] : redirectsOf(host),
    };
  }
  const zoneDays = zoneDaysFor(schedule.timezone, from, to, zoneCache);
  const weekly = parseWeekly(schedule);
  const limits = host.bookingLimits ?? null;
  // Whole Monday-to-Sunday weeks around the days asked about, so every counted start lands in its local day.
  const load = limits === null ? null : countLoadWithin(limits.starts, weeksAround(zoneDays, zoneCache));
  const days: HostDay[] = [];
  for (let day = zoneDays.firstDay; day <= zoneDays.lastDay; day++) {
    const date = epochDayToIsoDate(day);
    const wallWindows = windowsOfDate(host.overrides[date], weekly[dayOfWeek(day)]);
    days.push({
      date,
      windows: toInstantWindows(zoneDays, day, wallWindows),
      capReached: rules.maxBookingsPerDay !== null && (host.bookingsPerDate[date] ?? 0) >= rules.maxBookingsPerDay,
      limitReached: limits !== null && load !== null && limitReachedOn(limits, load, day),
    });
  }
  return {
    userId,
    lastBookedAt,
    days,
    zoneDays,
    busy: BusyIndex.build(host.busy, rules, from, to),
    held: BusyIndex.build(host.held ?? [], rules, from, to),
    calendarBusy: BusyIndex.build(withoutBuffers(host.externalBusy ?? []), rules, from, to),
    seats: SeatIndex.build(host.seats ?? [], rules, from, to),
    outOfOffice: BusyIndex.build(
      withoutBuffers(host.outOfOffice ?? []),
      { ...rules, bufferBeforeMinutes: 0, bufferAfterMinutes: 0 },
      from,
      to,
    ),
    redirects: redirectsOf(host),
  };
}

/** The stand-in for a meeting at `start` (its meeting overlapping an entry with one), or undefined. */
export function standInAt(host: PreparedHost, start: number, duration: number): string | undefined {
  for (const redirect of host.redirects) if (start < redirect.end && redirect.start < start + duration) return redirect.userId;
  return undefined;
}

function redirectsOf(host: HostAvailability): PreparedHost['redirects'] {
  return (host.outOfOffice ?? [])
    .flatMap(({ start, end, redirectToUserId }) => (redirectToUserId ? [{ start, end, userId: redirectToUserId }] : []))
    .sort((a, b) => a.start - b.start);
}

function withoutBuffers(external: readonly ExternalBusy[]): BusyInterval[] {
  return external.map(({ start, end }) => ({ start, end, bufferBeforeMinutes: 0, bufferAfterMinutes: 0 }));
}

/** The host day whose window grid has `start` as a candidate that fits, if any. */
export function findGridDay(host: PreparedHost, start: number, step: number, duration: number): HostDay | undefined {
  const epochDay = host.zoneDays?.dayOf(start);
  if (host.zoneDays === null || epochDay === undefined) return undefined;
  const day = host.days[epochDay - host.zoneDays.firstDay];
  const onGrid = day.windows.some(
    (window) => start >= window.start && start + duration <= window.end && (start - window.start) % step === 0,
  );
  return onGrid ? day : undefined;
}

function zoneDaysFor(timeZone: string, from: number, to: number, cache: ZoneDaysCache): ZoneDays {
  let zoneDays = cache.get(timeZone);
  if (zoneDays === undefined) {
    zoneDays = ZoneDays.covering(timeZone, from, to);
    cache.set(timeZone, zoneDays);
  }
  return zoneDays;
}

/** The whole Monday-to-Sunday weeks around `zoneDays`' days, built once per zone for every host of a query. */
function weeksAround(zoneDays: ZoneDays, cache: ZoneDaysCache): ZoneDays {
  const key = `${zoneDays.timeZone}\u0000weeks`;
  let weeks = cache.get(key);
  if (weeks === undefined) {
    weeks = ZoneDays.build(zoneDays.timeZone, mondayOf(zoneDays.firstDay), mondayOf(zoneDays.lastDay) + 6);
    cache.set(key, weeks);
  }
  return weeks;
}

function parseWeekly(schedule: WeeklySchedule): WallWindow[][] {
  const weekly: WallWindow[][] = [[], [], [], [], [], [], []];
  for (const day of schedule.days) {
    if (!Number.isInteger(day.dayOfWeek) || day.dayOfWeek < 0 || day.dayOfWeek > 6) {
      throw new RangeError(`Invalid dayOfWeek ${day.dayOfWeek}, expected 0 (Sunday) … 6 (Saturday)`);
    }
    weekly[day.dayOfWeek].push(...day.windows.map(parseWindow));
  }
  return weekly;
}

function windowsOfDate(override: DateOverride | undefined, weekly: readonly WallWindow[]): readonly WallWindow[] {
  if (override === undefined) return weekly;
  return override.type === 'unavailable' ? [] : override.windows.map(parseWindow);
}

function parseWindow(window: TimeWindow): WallWindow {
  return [parseWallTime(window.startTime), parseWallTime(window.endTime)];
}

function toInstantWindows(zoneDays: ZoneDays, day: number, wallWindows: readonly WallWindow[]): InstantWindow[] {
  const windows: InstantWindow[] = [];
  for (const [startOfWindow, endOfWindow] of wallWindows) {
    const start = zoneDays.wallToInstant(day, startOfWindow);
    const end = zoneDays.wallToInstant(day, endOfWindow);
    if (end > start) windows.push({ start, end });
  }
  return windows.sort((a, b) => a.start - b.start);
}
