import ICAL from 'ical.js';
import './ical-time-clone.js';
import { ianaZone, resolveZone, type WallTime, type Zone } from './zones.js';

/** A busy interval, [start, end) in epoch milliseconds. */
export interface BusyInterval {
  start: number;
  end: number;
}

export interface BusyOptions {
  /** Where floating and date-only times are read: the member's schedule timezone (IANA). */
  timeZone: string;
  /** Only intervals overlapping [from, to) are returned, epoch milliseconds. */
  from: number;
  to: number;
  /** Events whose UID this returns true for are not busy (the service's own write-back). */
  ignoreUid?: (uid: string) => boolean;
}

/** The text is not an iCalendar object (the message says why, without the content). */
export class CalendarParseError extends Error {
  override readonly name = 'CalendarParseError';
}

/**
 * Bounds on the work one source may cause (a hostile or broken feed: FREQ=SECONDLY without end, a huge
 * COUNT, 100,000 events): recurrence steps looked at in the whole source, instances of one series in
 * the window (a daily series over the 731-day window has 731), and busy intervals kept.
 * Beyond either, the source is refused with CalendarTooLargeError rather than read partly.
 */
export const MAX_RECURRENCE_STEPS = 1_000_000;
export const MAX_INSTANCES_PER_SERIES = 5_000;
export const MAX_BUSY_INTERVALS = 100_000;

/** The source would cost more than the bounds above. */
export class CalendarTooLargeError extends Error {
  override readonly name = 'CalendarTooLargeError';
}
const DAY_MS = 86_400_000;

/** What reading a time needs: the file's VTIMEZONEs and the zone of floating and date-only times. */
interface Context {
  vtimezones: ReadonlyMap<string, ICAL.Timezone>;
  fallback: Zone;
  /** Recurrence steps left for the whole source. */
  steps: { left: number };
}

interface Resolved {
  /** The instant of a DATE or DATE-TIME value. */
  instant: number;
  isDate: boolean;
  zone: Zone;
  wall: WallTime;
}

/**
 * Busy intervals of an iCalendar text (RFC 5545), bounded to [from, to): VEVENTs that are busy (not
 * TRANSP:TRANSPARENT, STATUS:CANCELLED or X-MICROSOFT-CDO-BUSYSTATUS:FREE), recurring ones expanded in
 * wall-clock time (RRULE with COUNT/UNTIL/INTERVAL and BY rules, RDATE, EXDATE, RECURRENCE-ID overrides
 * and cancelled instances). Times with a TZID use that zone (IANA, Windows name or the file's
 * VTIMEZONE); floating and date-only times use `timeZone`. Pure: no I/O, no clock. Sorted by start.
 */
export function busyFromICalendar(text: string, options: BusyOptions): BusyInterval[] {
  const root = parse(text);
  const fallback = ianaZone(options.timeZone);
  const vtimezones = new Map<string, ICAL.Timezone>();
  for (const component of root.getAllSubcomponents('vtimezone')) {
    const tzid = component.getFirstPropertyValue('tzid');
    if (typeof tzid === 'string') vtimezones.set(tzid, new ICAL.Timezone(component));
  }
  const context: Context = { vtimezones, fallback, steps: { left: MAX_RECURRENCE_STEPS } };
  const resolve = (property: ICAL.Property | null): Resolved | undefined => {
    const value = property?.getFirstValue();
    return value instanceof ICAL.Time ? resolveTime(context, value, property!.getParameter('tzid')) : undefined;
  };

  const masters = new Map<string, ICAL.Component>();
  const overrides = new Map<string, ICAL.Component[]>();
  const loose: ICAL.Component[] = [];
  // Each event on its own, detached from the calendar: ical.js otherwise looks every TZID value up among the
  // file's components, a scan of the whole file per value when the zone is not defined there (IANA names).
  // Zones are ours to resolve (`resolveTime`), so nothing is lost.
  for (const event of root.getAllSubcomponents('vevent').map((attached) => new ICAL.Component(attached.jCal))) {
    const uid = String(event.getFirstPropertyValue('uid') ?? '');
    if (uid && options.ignoreUid?.(uid)) continue;
    if (event.hasProperty('recurrence-id')) overrides.set(uid, [...(overrides.get(uid) ?? []), event]);
    else if (uid && !masters.has(uid)) masters.set(uid, event);
    else loose.push(event);
  }

  const result: BusyInterval[] = [];
  const keep = (interval: BusyInterval | undefined): void => {
    if (interval && interval.end > interval.start && interval.end > options.from && interval.start < options.to) {
      if (result.length >= MAX_BUSY_INTERVALS) throw new CalendarTooLargeError(`more than ${MAX_BUSY_INTERVALS} busy times in the window`);
      result.push(interval);
    }
  };

  for (const event of loose) if (isBusy(event)) keep(single(event, resolve));
  for (const [uid, master] of masters) {
    const changed = overrides.get(uid) ?? [];
    // Instants of the master's instances that an override replaces (moved, changed or cancelled).
    const replaced = new Set(changed.map((o) => resolve(o.getFirstProperty('recurrence-id'))?.instant).filter((i) => i !== undefined));
    if (isBusy(master)) {
      for (const interval of occurrences(master, context, resolve, options)) if (!replaced.has(interval.start)) keep(interval);
    }
    for (const override of changed) if (isBusy(override)) keep(single(override, resolve));
  }
  // Overrides whose master is not in the file (a feed of exceptions only) still say when someone is busy.
  for (const [uid, changed] of overrides) {
    if (!masters.has(uid)) for (const override of changed) if (isBusy(override)) keep(single(override, resolve));
  }
  return result.sort((x, y) => x.start - y.start || x.end - y.end);
}

function parse(text: string): ICAL.Component {
  let parsed: unknown;
  try {
    parsed = ICAL.parse(text);
  } catch (error) {
    throw new CalendarParseError(`not iCalendar: ${error instanceof Error ? error.message.slice(0, 200) : 'unparsable'}`);
  }
  const first = Array.isArray(parsed) && typeof parsed[0] === 'string' ? parsed : Array.isArray(parsed) ? parsed[0] : undefined;
  if (!Array.isArray(first) || first[0] !== 'vcalendar') throw new CalendarParseError('not iCalendar: no VCALENDAR');
  return new ICAL.Component(first as unknown[]);
}

function isBusy(event: ICAL.Component): boolean {
  const upper = (name: string): string => String(event.getFirstPropertyValue(name) ?? '').toUpperCase();
  return upper('transp') !== 'TRANSPARENT' && upper('status') !== 'CANCELLED' && upper('x-microsoft-cdo-busystatus') !== 'FREE';
}

function resolveTime(context: Context, time: ICAL.Time, tzid: string | string[] | null): Resolved {
  const { vtimezones, fallback } = context;
  const wall: WallTime = { year: time.year, month: time.month, day: time.day, hour: time.hour, minute: time.minute, second: time.second };
  if (time.isDate) {
    const date = { ...wall, hour: 0, minute: 0, second: 0 };
    return { instant: fallback.toInstant(date), isDate: true, zone: fallback, wall: date };
  }
  const utc = time.zone === ICAL.Timezone.utcTimezone || (time as { timezone?: string }).timezone === 'Z';
  const named = typeof tzid === 'string' ? resolveZone(tzid, vtimezones) : undefined;
  const zone = utc ? ianaZone('UTC') : (named ?? fallback);
  return { instant: zone.toInstant(wall), isDate: false, zone, wall };
}

/** How long each instance lasts, as a function of its start (nominal days and weeks move with the wall clock). */
function lengthOf(
  event: ICAL.Component,
  start: Resolved,
  resolve: (p: ICAL.Property | null) => Resolved | undefined,
): (instanceStart: Resolved) => number {
  const end = resolve(event.getFirstProperty('dtend'));
  if (end) {
    if (start.isDate) {
      const days = Math.round(
        (Date.UTC(end.wall.year, end.wall.month - 1, end.wall.day) - Date.UTC(start.wall.year, start.wall.month - 1, start.wall.day)) /
          DAY_MS,
      );
      return (instance) => addDays(instance, days) - instance.instant;
    }
    const exact = end.instant - start.instant;
    return () => exact;
  }
  const duration = event.getFirstPropertyValue('duration');
  if (duration instanceof ICAL.Duration) {
    const sign = duration.isNegative ? -1 : 1;
    const days = sign * (duration.weeks * 7 + duration.days);
    const exact = sign * ((duration.hours * 60 + duration.minutes) * 60 + duration.seconds) * 1000;
    return (instance) => addDays(instance, days) - instance.instant + exact;
  }
  // No end: a date lasts one day, a date-time is an instant (RFC 5545 3.6.1) and blocks nothing.
  return start.isDate ? (instance) => addDays(instance, 1) - instance.instant : () => 0;
}

function addDays(at: Resolved, days: number): number {
  if (days === 0) return at.instant;
  const date = new Date(Date.UTC(at.wall.year, at.wall.month - 1, at.wall.day + days));
  return at.zone.toInstant({ ...at.wall, year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate() });
}

function single(event: ICAL.Component, resolve: (p: ICAL.Property | null) => Resolved | undefined): BusyInterval | undefined {
  const start = resolve(event.getFirstProperty('dtstart'));
  if (!start) return undefined;
  return { start: start.instant, end: start.instant + lengthOf(event, start, resolve)(start) };
}

/** Every instance of a (possibly recurring) event that can overlap [from, to). */
function occurrences(
  event: ICAL.Component,
  context: Context,
  resolve: (p: ICAL.Property | null) => Resolved | undefined,
  options: BusyOptions,
): BusyInterval[] {
  const start = resolve(event.getFirstProperty('dtstart'));
  if (!start) return [];
  const length = lengthOf(event, start, resolve);
  /** Instance start → its end when an RDATE period gives one, else null. */
  const instances = new Map<number, { at: Resolved; end: number | null }>();
  instances.set(start.instant, { at: start, end: null });

  // An instance starting this long before `from` may still overlap the window.
  const reach = Math.max(length(start), DAY_MS) + 2 * DAY_MS;
  for (const property of event.getAllProperties('rrule')) {
    const recur = (property.getFirstValue() as ICAL.Recur).clone();
    // Iterate in the event's own wall-clock time (a floating copy of DTSTART), so a 09:00 meeting stays
    // at 09:00 across DST. An UNTIL in UTC is moved into the same wall clock before it is compared.
    if (recur.until && !recur.until.isDate && !start.isDate && recur.until.zone === ICAL.Timezone.utcTimezone) {
      const wall = start.zone.toWall(recur.until.toUnixTime() * 1000);
      recur.until = new ICAL.Time({ ...wall, isDate: false }, ICAL.Timezone.localTimezone);
    }
    // A DATE UNTIL on a DATE-TIME series (against RFC 5545, but common) keeps that whole day.
    if (recur.until?.isDate && !start.isDate) {
      const { year, month, day } = recur.until;
      recur.until = new ICAL.Time({ year, month, day, hour: 23, minute: 59, second: 59, isDate: false }, ICAL.Timezone.localTimezone);
    }
    // Wall-clock bounds of what can matter, as plain numbers: instances before them are skipped without
    // a time-zone conversion (the costly part), and the iteration starts close to them when it may.
    const earliest = wallSeconds(start.zone.toWall(options.from - reach)) - 2 * 86_400;
    const anchor = fastForward(recur, start.wall, earliest);
    const iterator = recur.iterator(new ICAL.Time({ ...anchor, isDate: start.isDate }, ICAL.Timezone.localTimezone));
    let inWindow = 0;
    // A moved anchor is yielded first whether or not it matches the rule: it lies before the window, skip it.
    if (anchor !== start.wall) iterator.next();
    for (;;) {
      if (--context.steps.left < 0) throw new CalendarTooLargeError(`more than ${MAX_RECURRENCE_STEPS} recurring instances to expand`);
      const next = iterator.next();
      if (!next) break;
      const wall = { year: next.year, month: next.month, day: next.day, hour: next.hour, minute: next.minute, second: next.second };
      if (wallSeconds(wall) < earliest) continue;
      const at: Resolved = { instant: start.zone.toInstant(wall), isDate: start.isDate, zone: start.zone, wall };
      if (at.instant >= options.to) break;
      if (++inWindow > MAX_INSTANCES_PER_SERIES) {
        throw new CalendarTooLargeError(`a recurring event has more than ${MAX_INSTANCES_PER_SERIES} instances in the window`);
      }
      if (at.instant + reach > options.from) instances.set(at.instant, { at, end: null });
    }
  }
  for (const property of event.getAllProperties('rdate')) {
    const tzid = property.getParameter('tzid');
    for (const value of property.getValues()) {
      if (value instanceof ICAL.Period) {
        const at = resolveTime(context, value.start, tzid);
        const end = value.end ? resolveTime(context, value.end, tzid).instant : at.instant + value.getDuration().toSeconds() * 1000;
        instances.set(at.instant, { at, end });
      } else if (value instanceof ICAL.Time) {
        const at = resolveTime(context, value, tzid);
        instances.set(at.instant, { at, end: null });
      }
    }
  }
  const excluded = new Set<number>();
  const excludedDates = new Set<string>();
  for (const property of event.getAllProperties('exdate')) {
    for (const value of property.getValues()) {
      if (!(value instanceof ICAL.Time)) continue;
      if (value.isDate) excludedDates.add(dateKey(value));
      else excluded.add(resolveTime(context, value, property.getParameter('tzid')).instant);
    }
  }
  const result: BusyInterval[] = [];
  for (const { at, end } of instances.values()) {
    if (excluded.has(at.instant) || excludedDates.has(dateKey(at.wall))) continue;
    result.push({ start: at.instant, end: end ?? at.instant + length(at) });
  }
  return result;
}

/** A wall-clock time as seconds of a UTC-like count: ordered like the wall clock, no zone involved. */
function wallSeconds(wall: WallTime): number {
  return Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second) / 1000;
}

const FIXED_PERIOD_SECONDS: Partial<Record<string, number>> = { SECONDLY: 1, MINUTELY: 60, HOURLY: 3600, DAILY: 86_400, WEEKLY: 604_800 };

/**
 * Where to start iterating a series without COUNT: its DTSTART moved forward by whole periods (INTERVAL
 * times the frequency) to just before `earliest`, which yields the same instances from there on, as
 * BY rules are evaluated per period. Months and years move only when the day of month exists in every
 * month (≤ 28). Returns DTSTART itself when nothing can be skipped.
 */
function fastForward(recur: ICAL.Recur, wall: WallTime, earliest: number): WallTime {
  if (recur.count || wallSeconds(wall) >= earliest) return wall;
  const interval = recur.interval || 1;
  const fixed = FIXED_PERIOD_SECONDS[recur.freq];
  if (fixed !== undefined) {
    const period = fixed * interval;
    const periods = Math.floor((earliest - wallSeconds(wall)) / period) - 1;
    if (periods <= 0) return wall;
    const moved = new Date((wallSeconds(wall) + periods * period) * 1000);
    return {
      year: moved.getUTCFullYear(),
      month: moved.getUTCMonth() + 1,
      day: moved.getUTCDate(),
      hour: moved.getUTCHours(),
      minute: moved.getUTCMinutes(),
      second: moved.getUTCSeconds(),
    };
  }
  if ((recur.freq === 'MONTHLY' || recur.freq === 'YEARLY') && wall.day <= 28) {
    const months = recur.freq === 'MONTHLY' ? interval : 12 * interval;
    const target = new Date(earliest * 1000);
    const span = (target.getUTCFullYear() - wall.year) * 12 + (target.getUTCMonth() + 1 - wall.month);
    const periods = Math.floor(span / months) - 1;
    if (periods <= 0) return wall;
    const total = wall.month - 1 + periods * months;
    return { ...wall, year: wall.year + Math.floor(total / 12), month: (total % 12) + 1 };
  }
  return wall;
}

function dateKey(value: { year: number; month: number; day: number }): string {
  return `${value.year}-${value.month}-${value.day}`;
}
