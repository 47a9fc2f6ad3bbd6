/** Times are shown in the member's own timezone (api-rules.md § Console). */
export function formatDateTime(iso: string | null | undefined, timeZone: string): string {
  if (!iso) return '—';
  return new Intl.DateTimeFormat('en-GB', { timeZone, dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso));
}

export function formatTime(iso: string, timeZone: string): string {
  return new Intl.DateTimeFormat('en-GB', { timeZone, timeStyle: 'short' }).format(new Date(iso));
}

/** The calendar date (YYYY-MM-DD) of an instant in a timezone. */
export function dateIn(instant: Date, timeZone: string): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(instant);
}

export function addDays(date: string, days: number): string {
  const next = new Date(`${date}T00:00:00Z`);
  next.setUTCDate(next.getUTCDate() + days);
  return next.toISOString().slice(0, 10);
}

function offsetMs(instantMs: number, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(new Date(instantMs));
  const part = (type: Intl.DateTimeFormatPartTypes): number => Number(parts.find((p) => p.type === type)?.value);
  return Date.UTC(part('year'), part('month') - 1, part('day'), part('hour'), part('minute'), part('second')) - instantMs;
}

/** The instant a wall-clock time (`YYYY-MM-DDTHH:MM`, as a datetime-local input gives it) names in a timezone. */
export function zonedToInstant(local: string, timeZone: string): Date {
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/.exec(local);
  if (!match) return new Date(Number.NaN);
  const [year, month, day, hour, minute] = match.slice(1).map(Number);
  const wall = Date.UTC(year, month - 1, day, hour, minute);
  const first = wall - offsetMs(wall, timeZone);
  return new Date(wall - offsetMs(first, timeZone));
}

/** The value for a datetime-local input showing an instant in a timezone. */
export function instantToZoned(iso: string, timeZone: string): string {
  const at = new Date(iso).getTime();
  return new Date(at + offsetMs(at, timeZone)).toISOString().slice(0, 16);
}

const wallFormats = new Map<string, Intl.DateTimeFormat>();

/** Minutes since the wall clock's midnight of an instant in a timezone (09:00 is 540 on a DST day too). */
export function wallMinutes(instant: Date, timeZone: string): number {
  let format = wallFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', hour: '2-digit', minute: '2-digit' });
    wallFormats.set(timeZone, format);
  }
  const parts = format.formatToParts(instant);
  const part = (type: Intl.DateTimeFormatPartTypes): number => Number(parts.find((p) => p.type === type)?.value);
  return part('hour') * 60 + part('minute');
}

/** The first day of the week in a locale, 1 (Monday) to 7 (Sunday), as `Intl.Locale` knows it; Monday otherwise. */
export function firstDayOfWeek(locale: string | undefined = globalThis.navigator?.language): number {
  try {
    const info = new Intl.Locale(locale || 'en-GB') as Intl.Locale & {
      getWeekInfo?: () => { firstDay: number };
      weekInfo?: { firstDay: number };
    };
    return info.getWeekInfo?.().firstDay ?? info.weekInfo?.firstDay ?? 1;
  } catch {
    // A browser without a usable locale (an empty navigator.language): weeks start on Monday.
    return 1;
  }
}

/** The first date (YYYY-MM-DD) of the week that holds `date`, the week starting on `firstDay` (1 Monday … 7 Sunday). */
export function weekStart(date: string, firstDay: number): string {
  const isoDay = new Date(`${date}T00:00:00Z`).getUTCDay() || 7;
  return addDays(date, -((isoDay - firstDay + 7) % 7));
}

/** "Mon 8 Mar": a date's column heading. */
export function dayHeading(date: string): string {
  return new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', weekday: 'short', day: 'numeric', month: 'short' }).format(
    new Date(`${date}T12:00:00Z`),
  );
}

/** The dates from `start` to `end`, both included. */
export function datesBetween(start: string, end: string): string[] {
  const dates: string[] = [];
  for (let date = start; date <= end && dates.length < 62; date = addDays(date, 1)) dates.push(date);
  return dates;
}
