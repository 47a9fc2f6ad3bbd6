import ICAL from 'ical.js';
import { Temporal } from 'temporal-polyfill';
import { findIana } from 'windows-iana';

/** A wall-clock date and time, as an iCalendar DATE-TIME without zone says it. */
export interface WallTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

/** Turns wall-clock times into instants and back, for one zone. */
export interface Zone {
  readonly name: string;
  toInstant(wall: WallTime): number;
  toWall(instant: number): WallTime;
}

const ianaZones = new Map<string, boolean>();

/** Whether the platform's zone database knows `name` (cached; the database does not change while running). */
export function isIanaZone(name: string): boolean {
  let known = ianaZones.get(name);
  if (known === undefined) {
    try {
      Temporal.Now.zonedDateTimeISO(name);
      known = true;
    } catch {
      known = false;
    }
    if (ianaZones.size < 10_000) ianaZones.set(name, known);
  }
  return known;
}

const ianaZoneCache = new Map<string, Zone>();
const MAX_CACHED_DAYS = 50_000;

/**
 * An IANA zone through Temporal. A wall time in a DST gap is read with the offset before the gap, a
 * repeated one as its first occurrence: what RFC 5545 (3.3.5) prescribes and Temporal calls 'compatible'.
 * Converting is the costly part of expanding a feed, so each local date's offset is looked up once: on a
 * date whose offset is the same at its first and last second (every date but the two transition dates of
 * a year), a wall time is that offset away from UTC; transition dates go through Temporal each time.
 */
export function ianaZone(name: string): Zone {
  const cached = ianaZoneCache.get(name);
  if (cached) return cached;
  const exact = (wall: WallTime): number =>
    Temporal.PlainDateTime.from(wall).toZonedDateTime(name, { disambiguation: 'compatible' }).epochMilliseconds;
  const dayOffsets = new Map<string, number | null>();
  const offsetOfDay = (wall: WallTime): number | null => {
    const key = `${wall.year}-${wall.month}-${wall.day}`;
    let offset = dayOffsets.get(key);
    if (offset === undefined) {
      const first = { ...wall, hour: 0, minute: 0, second: 0 };
      const last = { ...wall, hour: 23, minute: 59, second: 59 };
      const atFirst = Date.UTC(first.year, first.month - 1, first.day) - exact(first);
      const atLast = Date.UTC(last.year, last.month - 1, last.day, 23, 59, 59) - exact(last);
      offset = atFirst === atLast ? atFirst : null;
      if (dayOffsets.size >= MAX_CACHED_DAYS) dayOffsets.clear();
      dayOffsets.set(key, offset);
    }
    return offset;
  };
  const zone: Zone = {
    name,
    toInstant: (wall) => {
      const offset = offsetOfDay(wall);
      return offset === null ? exact(wall) : Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second) - offset;
    },
    toWall: (instant) => {
      const local = Temporal.Instant.fromEpochMilliseconds(instant).toZonedDateTimeISO(name);
      return { year: local.year, month: local.month, day: local.day, hour: local.hour, minute: local.minute, second: local.second };
    },
  };
  if (ianaZoneCache.size < 1_000) ianaZoneCache.set(name, zone);
  return zone;
}

/** A zone defined only by the file's own VTIMEZONE (a custom TZID), through ical.js. */
function vtimezoneZone(name: string, timezone: ICAL.Timezone): Zone {
  return {
    name,
    toInstant: (wall) => new ICAL.Time({ ...wall, isDate: false }, timezone).toUnixTime() * 1000,
    toWall: (instant) => {
      const local = ICAL.Time.fromJSDate(new Date(instant), true).convertToZone(timezone);
      return { year: local.year, month: local.month, day: local.day, hour: local.hour, minute: local.minute, second: local.second };
    },
  };
}

/**
 * What a TZID names, in this order: an IANA zone (whatever VTIMEZONE the file carries for it: the zone
 * database is more exact than a file's copy of it), a Windows zone name as Outlook writes it
 * ("W. Europe Standard Time"), the file's own VTIMEZONE, else undefined.
 */
export function resolveZone(tzid: string, vtimezones: ReadonlyMap<string, ICAL.Timezone>): Zone | undefined {
  const name = tzid.trim().replace(/^"|"$/g, '');
  if (isIanaZone(name)) return ianaZone(name);
  const windows = findIana(name)[0];
  if (windows && isIanaZone(windows)) return ianaZone(windows);
  const own = vtimezones.get(name);
  return own ? vtimezoneZone(name, own) : undefined;
}
