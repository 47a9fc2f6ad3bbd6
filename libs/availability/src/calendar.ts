/**
 * Plain calendar arithmetic on ISO dates (proleptic Gregorian, no time zone involved).
 * Dates travel as epoch days (days since 1970-01-01) inside the engine so that stepping
 * through a range costs an integer increment instead of a Temporal object.
 */

export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

const DATE_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIME_PATTERN = /^(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?$/;

export interface CivilDate {
  readonly year: number;
  readonly month: number;
  readonly day: number;
}

/** Days since 1970-01-01 (Howard Hinnant's days_from_civil). */
export function civilToEpochDay({ year, month, day }: CivilDate): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

export function epochDayToCivil(epochDay: number): CivilDate {
  const z = epochDay + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const shiftedMonth = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * shiftedMonth + 2) / 5) + 1;
  const month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9;
  return { year: yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day };
}

/** Parses a real calendar date 'YYYY-MM-DD' (2027-02-30 is rejected). */
export function parseIsoDate(date: string): CivilDate {
  const match = DATE_PATTERN.exec(date);
  if (match) {
    const civil = { year: Number(match[1]), month: Number(match[2]), day: Number(match[3]) };
    const roundTrip = epochDayToCivil(civilToEpochDay(civil));
    if (roundTrip.month === civil.month && roundTrip.day === civil.day) return civil;
  }
  throw new RangeError(`Invalid date '${date}', expected YYYY-MM-DD`);
}

export function isoDateToEpochDay(date: string): number {
  return civilToEpochDay(parseIsoDate(date));
}

export function epochDayToIsoDate(epochDay: number): string {
  const { year, month, day } = epochDayToCivil(epochDay);
  return `${String(year).padStart(4, '0')}-${pad2(month)}-${pad2(day)}`;
}

/** 0 = Sunday … 6 = Saturday; 1970-01-01 was a Thursday. */
export function dayOfWeek(epochDay: number): number {
  return (((epochDay + 4) % 7) + 7) % 7;
}

export function addDays(date: string, days: number): string {
  if (!Number.isInteger(days)) throw new RangeError(`Day count must be an integer, got ${days}`);
  return epochDayToIsoDate(isoDateToEpochDay(date) + days);
}

/**
 * Milliseconds since local midnight for 'HH:MM' or 'HH:MM:SS(.sss)'. '24:00' is accepted and
 * yields a full day: callers treat it as the start of the next local date, never as elapsed time.
 */
export function parseWallTime(time: string): number {
  const match = TIME_PATTERN.exec(time);
  if (match) {
    const hours = Number(match[1]);
    const minutes = Number(match[2]);
    const seconds = match[3] === undefined ? 0 : Number(match[3]);
    const millis = match[4] === undefined ? 0 : Number(match[4].padEnd(3, '0'));
    const value = ((hours * 60 + minutes) * 60 + seconds) * 1000 + millis;
    if (minutes < 60 && seconds < 60 && (hours < 24 || value === DAY_MS)) return value;
  }
  throw new RangeError(`Invalid time '${time}', expected HH:MM, HH:MM:SS(.sss) or 24:00`);
}

export function formatWallTime(msOfDay: number): string {
  const hours = Math.floor(msOfDay / HOUR_MS);
  const minutes = Math.floor((msOfDay % HOUR_MS) / MINUTE_MS);
  const seconds = Math.floor((msOfDay % MINUTE_MS) / 1000);
  const millis = msOfDay % 1000;
  return `${pad2(hours)}:${pad2(minutes)}:${pad2(seconds)}.${String(millis).padStart(3, '0')}`;
}

function pad2(value: number): string {
  return String(value).padStart(2, '0');
}
