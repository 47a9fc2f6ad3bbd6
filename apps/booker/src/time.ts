/** Calendar dates are 'YYYY-MM-DD' in the chosen zone; instants come from the API as ISO strings with offsets. */

const formats = new Map<string, Intl.DateTimeFormat>();

function format(locale: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = `${locale}|${JSON.stringify(options)}`;
  let found = formats.get(key);
  if (!found) {
    found = new Intl.DateTimeFormat(locale, options);
    formats.set(key, found);
  }
  return found;
}

/** Today's date in `timeZone`. */
export function todayIn(timeZone: string, now = new Date()): string {
  return format('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(now);
}

/** Every date of the month of `date` ('YYYY-MM-…'). */
export function monthDates(date: string): string[] {
  const [year, month] = date.split('-').map(Number);
  const days = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return Array.from({ length: days }, (_, i) => `${date.slice(0, 7)}-${String(i + 1).padStart(2, '0')}`);
}

/** The first of the month `delta` months from the month of `date`. */
export function shiftMonth(date: string, delta: number): string {
  const [year, month] = date.split('-').map(Number);
  const shifted = new Date(Date.UTC(year, month - 1 + delta, 1));
  return shifted.toISOString().slice(0, 10);
}

/** 1 (Monday) … 7 (Sunday): the locale's first day of the week. */
export function firstDayOfWeek(locale: string): number {
  try {
    const info = new Intl.Locale(locale) as Intl.Locale & { getWeekInfo?: () => { firstDay: number }; weekInfo?: { firstDay: number } };
    const week = info.getWeekInfo?.() ?? info.weekInfo;
    if (week) return week.firstDay;
  } catch {
    // An unknown locale: the default below.
  }
  return /^en-(US|CA)$|^ja|^he/.test(locale) ? 7 : 1;
}

/** 1 (Monday) … 7 (Sunday) of a date. */
export function isoWeekday(date: string): number {
  const day = new Date(`${date}T12:00:00Z`).getUTCDay();
  return day === 0 ? 7 : day;
}

/** The weekday names, short and long, starting on `first` (1 = Monday). */
export function weekdayNames(locale: string, first: number): { short: string; long: string }[] {
  // 2024-01-01 was a Monday.
  return Array.from({ length: 7 }, (_, i) => {
    const date = new Date(Date.UTC(2024, 0, ((first - 1 + i) % 7) + 1, 12));
    return {
      short: format(locale, { weekday: 'short', timeZone: 'UTC' }).format(date),
      long: format(locale, { weekday: 'long', timeZone: 'UTC' }).format(date),
    };
  });
}

export function monthTitle(date: string, locale: string): string {
  return format(locale, { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(new Date(`${date.slice(0, 7)}-01T12:00:00Z`));
}

export function longDate(date: string, locale: string): string {
  return format(locale, { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' }).format(
    new Date(`${date}T12:00:00Z`),
  );
}

export function timeOf(instant: string, locale: string, timeZone: string): string {
  return format(locale, { hour: 'numeric', minute: '2-digit', timeZone }).format(new Date(instant));
}

export function dateTimeOf(instant: string, locale: string, timeZone: string): string {
  return format(locale, { dateStyle: 'full', timeStyle: 'short', timeZone }).format(new Date(instant));
}

/** `GMT+1`, `GMT-4`: the zone's offset now. */
export function offsetOf(timeZone: string, now = new Date()): string {
  const part = format('en-US', { timeZone, timeZoneName: 'shortOffset' })
    .formatToParts(now)
    .find((p) => p.type === 'timeZoneName');
  return part?.value ?? '';
}

let knownZones: { zone: string; label: string }[] | undefined;

/** Every IANA zone this browser knows, with its current offset; worked out once (some 400 zones), when first needed. */
export function zones(): { zone: string; label: string }[] {
  const names = (Intl as typeof Intl & { supportedValuesOf?: (key: string) => string[] }).supportedValuesOf?.('timeZone') ?? ['UTC'];
  knownZones ??= names.map((zone) => ({ zone, label: `${zone.replace(/_/g, ' ')} (${offsetOf(zone)})` }));
  return knownZones;
}

export function minutesLeft(until: string, now = Date.now()): string {
  const seconds = Math.max(0, Math.round((Date.parse(until) - now) / 1000));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}
