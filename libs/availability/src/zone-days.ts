import { DAY_MS, epochDayToCivil, epochDayToIsoDate, formatWallTime } from './calendar.js';
import { formatInstantInZone, localEpochDayOf, nextTransitionAfter, offsetSuffix, resolveWallTime, startOfDay } from './zoned-time.js';

/**
 * The local days of one zone over a span of dates, as instants.
 *
 * Temporal is asked once for the start of the span and for the next offset transition. On a day
 * that starts at a real midnight and has no transition before the next one, local time and elapsed
 * time advance together, so a wall time is midnight plus elapsed milliseconds and the next day starts
 * 24 h later. No offset is ever computed here; only days that contain a transition (two or so a year)
 * go back to Temporal for every conversion. This keeps a 93-day query at a handful of Temporal calls
 * per zone instead of one per window boundary.
 */
export class ZoneDays {
  private readonly resolved = new Map<number, number>();

  private constructor(
    readonly timeZone: string,
    readonly firstDay: number,
    /** starts[i] is the first instant of firstDay + i; one extra entry closes the last day. */
    private readonly starts: readonly number[],
    /** Offset suffix of a transition-free day, or null when the day needs Temporal. */
    private readonly offsets: readonly (string | null)[],
  ) {}

  static build(timeZone: string, firstDay: number, lastDay: number): ZoneDays {
    const starts: number[] = [];
    const offsets: (string | null)[] = [];
    let anchored = true;
    let offset = '';
    let nextTransition = Infinity;
    let midnightExists = false;
    for (let day = firstDay; day <= lastDay + 1; day++) {
      if (anchored) {
        const zoned = startOfDay(epochDayToCivil(day), timeZone);
        starts.push(zoned.epochMilliseconds);
        midnightExists = zoned.hour === 0 && zoned.minute === 0 && zoned.second === 0 && zoned.millisecond === 0;
        nextTransition = nextTransitionAfter(zoned);
        offset = offsetSuffix(zoned);
      }
      if (day > lastDay) break;
      const start = starts[starts.length - 1];
      const regular = midnightExists && nextTransition > start + DAY_MS;
      offsets.push(regular ? offset : null);
      anchored = !regular;
      if (regular) starts.push(start + DAY_MS);
    }
    return new ZoneDays(timeZone, firstDay, starts, offsets);
  }

  /** Builds the table for every local date touched by [from, to] (instants). */
  static covering(timeZone: string, from: number, to: number): ZoneDays {
    return ZoneDays.build(timeZone, localEpochDayOf(from, timeZone), localEpochDayOf(to, timeZone));
  }

  get lastDay(): number {
    return this.firstDay + this.offsets.length - 1;
  }

  /** Valid for firstDay … lastDay + 1. */
  dayStart(epochDay: number): number {
    return this.starts[epochDay - this.firstDay];
  }

  /** Wall time (ms since local midnight, DAY_MS for '24:00') of a date in the span → instant. */
  wallToInstant(epochDay: number, msOfDay: number): number {
    const index = epochDay - this.firstDay;
    if (msOfDay === DAY_MS) return this.starts[index + 1];
    if (this.offsets[index] !== null) return this.starts[index] + msOfDay;
    const key = epochDay * DAY_MS + msOfDay;
    let instant = this.resolved.get(key);
    if (instant === undefined) {
      instant = resolveWallTime(epochDayToCivil(epochDay), msOfDay, this.timeZone);
      this.resolved.set(key, instant);
    }
    return instant;
  }

  /** Local date containing the instant, or undefined outside the span. */
  dayOf(instant: number): number | undefined {
    if (instant < this.starts[0] || instant >= this.starts[this.starts.length - 1]) return undefined;
    let low = 0;
    let high = this.starts.length - 1;
    while (high - low > 1) {
      const middle = (low + high) >>> 1;
      if (this.starts[middle] <= instant) low = middle;
      else high = middle;
    }
    return this.firstDay + low;
  }

  /** Same output as formatInstantInZone; instants must lie inside the span. */
  format(instant: number): string {
    const day = this.dayOf(instant);
    const offset = day === undefined ? null : this.offsets[day - this.firstDay];
    if (day === undefined || offset === null) return formatInstantInZone(instant, this.timeZone);
    return `${epochDayToIsoDate(day)}T${formatWallTime(instant - this.dayStart(day))}${offset}`;
  }
}

/** Formats many instants in one zone, e.g. every slot of a response, with a few Temporal calls in total. */
export function formatInstantsInZone(instants: readonly number[], timeZone: string): string[] {
  if (instants.length === 0) return [];
  let earliest = Infinity;
  let latest = -Infinity;
  for (const instant of instants) {
    earliest = Math.min(earliest, instant);
    latest = Math.max(latest, instant);
  }
  const days = ZoneDays.covering(timeZone, earliest, latest);
  return instants.map((instant) => days.format(instant));
}
