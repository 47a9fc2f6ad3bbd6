import { Temporal } from 'temporal-polyfill';
import { type CivilDate, DAY_MS, civilToEpochDay, epochDayToCivil, parseIsoDate, parseWallTime } from './calendar.js';

/**
 * Time-zone conversions. Every offset comes from Temporal (tzdata); the process time zone and
 * clock are never consulted, so results are the same on any server.
 */

const INPUT_TIMESTAMP = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d{1,9})?)?(?<offset>[Zz]|[+-]\d{2}(?::?\d{2})?)?$/;

/** Wall-clock date and time in `timeZone` → instant, with the gap and fall-back rules of api-rules.md § Slots. */
export function localDateTimeToInstant(date: string, time: string, timeZone: string): number {
  return resolveWallTime(parseIsoDate(date), parseWallTime(time), timeZone);
}

/**
 * The instants the API takes and stores: years 1 to 9999 in UTC (api-rules.md § Basics). PostgreSQL stores more, but
 * a JavaScript Date past them is written `+010000-…`, which it refuses, and year 0 does not exist in its calendar.
 */
export const EARLIEST_INSTANT = Date.parse('0001-01-01T00:00:00.000Z');
export const LATEST_INSTANT = Date.parse('9999-12-31T23:59:59.999Z');

export function isStorableInstant(instant: number): boolean {
  return instant >= EARLIEST_INSTANT && instant <= LATEST_INSTANT;
}

/**
 * ISO 8601 with `Z` or an offset is absolute; without one it is wall-clock time in `timeZone`.
 * Returns null for anything unparsable (including a bad zone when one is needed), and for an instant that is not
 * storable (a wall-clock 9999-12-31T23:59 west of UTC is in year 10000).
 */
export function parseInputTimestamp(iso: string, timeZone: string): number | null {
  const instant = inputTimestampInstant(iso, timeZone);
  return instant !== null && isStorableInstant(instant) ? instant : null;
}

/** parseInputTimestamp without the storable range: what the text means, whatever the year. */
export function inputTimestampInstant(iso: string, timeZone: string): number | null {
  const match = INPUT_TIMESTAMP.exec(iso);
  if (!match) return null;
  try {
    if (match.groups?.offset !== undefined) return Temporal.Instant.from(iso).epochMilliseconds;
    const local = Temporal.PlainDateTime.from(iso);
    return resolvePlainDateTime(local, timeZone);
  } catch {
    return null;
  }
}

/** `2026-03-02T10:00:00.000+01:00`, or `…Z` when the offset is zero. */
export function formatInstantInZone(instant: number, timeZone: string): string {
  const zoned = toZoned(instant, timeZone);
  return `${zoned.toPlainDateTime().toString({ fractionalSecondDigits: 3 })}${offsetSuffix(zoned)}`;
}

export function localEpochDayOf(instant: number, timeZone: string): number {
  const zoned = toZoned(instant, timeZone);
  return civilToEpochDay({ year: zoned.year, month: zoned.month, day: zoned.day });
}

export function startOfDay(date: CivilDate, timeZone: string): Temporal.ZonedDateTime {
  return new Temporal.PlainDate(date.year, date.month, date.day).toZonedDateTime({ timeZone });
}

/** `msOfDay` may be a full day ('24:00'), meaning the start of the next local date. */
export function resolveWallTime(date: CivilDate, msOfDay: number, timeZone: string): number {
  if (msOfDay === DAY_MS) return startOfDay(epochDayToCivil(civilToEpochDay(date) + 1), timeZone).epochMilliseconds;
  const local = new Temporal.PlainDateTime(
    date.year,
    date.month,
    date.day,
    Math.floor(msOfDay / 3_600_000),
    Math.floor(msOfDay / 60_000) % 60,
    Math.floor(msOfDay / 1000) % 60,
    msOfDay % 1000,
  );
  return resolvePlainDateTime(local, timeZone);
}

/**
 * 'earlier' already gives the first occurrence of a repeated time. For a time inside a gap it lands
 * before the jump instead (02:30 → 01:30 EST); api-rules.md § Slots wants the instant the gap ends, which is
 * the next transition. Temporal's own 'compatible' would give 03:30, shifted by the gap length.
 */
function resolvePlainDateTime(local: Temporal.PlainDateTime, timeZone: string): number {
  const zoned = local.toZonedDateTime(timeZone, { disambiguation: 'earlier' });
  if (Temporal.PlainDateTime.compare(zoned.toPlainDateTime(), local) === 0) return zoned.epochMilliseconds;
  const gapEnd = zoned.getTimeZoneTransition('next');
  if (gapEnd === null) throw new RangeError(`No transition after a skipped wall time in ${timeZone}`);
  return gapEnd.epochMilliseconds;
}

export function toZoned(instant: number, timeZone: string): Temporal.ZonedDateTime {
  return Temporal.Instant.fromEpochMilliseconds(instant).toZonedDateTimeISO(timeZone);
}

export function offsetSuffix(zoned: Temporal.ZonedDateTime): string {
  return zoned.offsetNanoseconds === 0 ? 'Z' : zoned.offset;
}

export function nextTransitionAfter(zoned: Temporal.ZonedDateTime): number {
  return zoned.getTimeZoneTransition('next')?.epochMilliseconds ?? Infinity;
}
