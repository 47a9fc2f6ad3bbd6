import { dayOfWeek, epochDayToIsoDate, isoDateToEpochDay } from './calendar.js';
import { ZoneDays } from './zone-days.js';

/**
 * Host booking limits (contract § 17): one person's load across every event type. A host at a limit is not offered
 * for another start in that local day or week of its schedule's zone (a week is Monday to Sunday there).
 */
export interface HostBookingLimits {
  /** 1..100 starts per local date; null: no daily limit. */
  readonly perDay: number | null;
  /** 1..500 starts per local Monday-to-Sunday week; null: no weekly limit. */
  readonly perWeek: number | null;
}

/**
 * What the limits count, for one host: the start of every confirmed or pending booking and live hold the host hosts
 * (any event type, the scope's mode), the seats of one start given once. Callers pass at least the starts in the local
 * weeks of the starts they ask about.
 */
export interface HostLimitLoad extends HostBookingLimits {
  readonly starts: readonly number[];
  /** Expiries (epoch ms) of the live holds among `starts`: a cached answer ends at the first (slotsValidUntil). */
  readonly holdExpiries?: readonly number[];
}

/** Counted starts per local epoch day and per local week (keyed by its Monday's epoch day) in `timeZone`. */
export interface LoadCounts {
  readonly perDay: ReadonlyMap<number, number>;
  readonly perWeek: ReadonlyMap<number, number>;
}

/** The Monday (epoch day) of the week holding `epochDay`. */
export function mondayOf(epochDay: number): number {
  return epochDay - ((dayOfWeek(epochDay) + 6) % 7);
}

/** The Monday ('YYYY-MM-DD') of the week holding `date`. */
export function weekOf(date: string): string {
  return epochDayToIsoDate(mondayOf(isoDateToEpochDay(date)));
}

/** Counts the distinct `starts` per local day and week of `timeZone`. */
export function countLoad(starts: readonly number[], timeZone: string): LoadCounts {
  const perDay = new Map<number, number>();
  const perWeek = new Map<number, number>();
  // In order, the zone's table is asked only where a new local day begins (not once per start).
  const sorted = [...new Set(starts)].sort((a, b) => a - b);
  let day = 0;
  let nextDayStart = -Infinity;
  for (const start of sorted) {
    if (start >= nextDayStart) {
      day = ZoneDays.localDay(start, timeZone);
      nextDayStart = ZoneDays.dayStartOf(day + 1, timeZone);
    }
    perDay.set(day, (perDay.get(day) ?? 0) + 1);
    const monday = mondayOf(day);
    perWeek.set(monday, (perWeek.get(monday) ?? 0) + 1);
  }
  return { perDay, perWeek };
}

/**
 * The same for the starts inside `days` (a zone's table of whole local days, see ZoneDays), the others left out: a
 * binary search per start instead of a zone lookup. Callers give it whole weeks around the days they ask about.
 */
export function countLoadWithin(starts: readonly number[], days: ZoneDays): LoadCounts {
  const perDay = new Map<number, number>();
  const perWeek = new Map<number, number>();
  for (const start of new Set(starts)) {
    const day = days.dayOf(start);
    if (day === undefined) continue;
    perDay.set(day, (perDay.get(day) ?? 0) + 1);
    const monday = mondayOf(day);
    perWeek.set(monday, (perWeek.get(monday) ?? 0) + 1);
  }
  return { perDay, perWeek };
}

/** Whether a host with these limits and counts may take no new start on the local epoch day `day`. */
export function limitReachedOn(limits: HostBookingLimits, counts: LoadCounts, day: number): boolean {
  if (limits.perDay !== null && (counts.perDay.get(day) ?? 0) >= limits.perDay) return true;
  return limits.perWeek !== null && (counts.perWeek.get(mondayOf(day)) ?? 0) >= limits.perWeek;
}
