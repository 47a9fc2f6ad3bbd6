import { DAY_MS, epochDayToCivil, epochDayToIsoDate, formatWallTime, isoDateToEpochDay } from './calendar.js';
import { formatInstantInZone, localEpochDayOf, nextTransitionAfter, offsetSuffix, resolveWallTime, startOfDay } from './zoned-time.js';

/** A zone's table is built in blocks of this many local dates (aligned on epoch days), each once per process. */
const BLOCK_DAYS = 64;
/** Blocks kept (some 2 KB each): a year of every zone in use is a few hundred; past the bound the least used goes. */
const MAX_BLOCKS = 4096;
/** Wall times resolved on a zone's transition days, kept per zone; a zone's map is emptied past this many. */
const MAX_RESOLVED = 20_000;

/**
 * The local days of one zone over a span of dates, as instants.
 *
 * Tables are cut from blocks of 64 dates shared by every computation in the process: a zone's rules (tzdata) do not
 * change while it runs, so what Temporal said of a date once stands. A cold availability query then asks Temporal
 * for no day start or local date of the zones and dates earlier queries met (its hosts' zones, the asked zone, the
 * limits' weeks); the few days with a transition still ask it for each instant they format, and once per wall time
 * they resolve (kept per zone). Zones are keyed case-insensitively, as IANA names are.
 *
 * Temporal is asked once for the start of the span and for the next offset transition. On a day
 * that starts at a real midnight and has no transition before the next one, local time and elapsed
 * time advance together, so a wall time is midnight plus elapsed milliseconds and the next day starts
 * 24 h later. No offset is ever computed here; only days that contain a transition (two or so a year)
 * go back to Temporal for every conversion. This keeps a 93-day query at a handful of Temporal calls
 * per zone instead of one per window boundary.
 */
export class ZoneDays {
  private static readonly blocks = new Map<string, ZoneDays>();
  private static readonly resolvedByZone = new Map<string, Map<number, number>>();

  private constructor(
    readonly timeZone: string,
    readonly firstDay: number,
    /** starts[i] is the first instant of firstDay + i; one extra entry closes the last day. */
    private readonly starts: readonly number[],
    /** Offset suffix of a transition-free day, or null when the day needs Temporal. */
    private readonly offsets: readonly (string | null)[],
    /** Wall times of days with a transition, resolved by Temporal: the zone's, shared by all its tables. */
    private readonly resolved: Map<number, number>,
  ) {}

  /** The table of local dates firstDay … lastDay, cut from the process's blocks. */
  static build(timeZone: string, firstDay: number, lastDay: number): ZoneDays {
    if (!Number.isInteger(firstDay) || !Number.isInteger(lastDay)) throw new RangeError(`Invalid dates ${firstDay} … ${lastDay}`);
    if (lastDay < firstDay) return ZoneDays.compute(timeZone, firstDay, lastDay);
    const first = ZoneDays.block(timeZone, Math.floor(firstDay / BLOCK_DAYS));
    if (lastDay <= first.lastDay) return first.slice(firstDay, lastDay);
    const starts: number[] = [];
    const offsets: (string | null)[] = [];
    let block = first;
    for (;;) {
      const end = Math.min(lastDay, block.lastDay);
      for (let day = Math.max(firstDay, block.firstDay); day <= end; day++) {
        starts.push(block.starts[day - block.firstDay]);
        offsets.push(block.offsets[day - block.firstDay]);
      }
      if (end === lastDay) {
        starts.push(block.starts[lastDay + 1 - block.firstDay]);
        return new ZoneDays(timeZone, firstDay, starts, offsets, first.resolved);
      }
      block = ZoneDays.block(timeZone, Math.floor(block.lastDay / BLOCK_DAYS) + 1);
    }
  }

  /** The local date (epoch day) holding an instant in `timeZone`: localEpochDayOf from the shared blocks. */
  static localDay(instant: number, timeZone: string): number {
    if (!Number.isFinite(instant)) throw new RangeError(`Invalid instant ${instant}`);
    // Offsets are within a day of UTC, so the date is in the block of the UTC date or a neighbour.
    const index = Math.floor(Math.floor(instant / DAY_MS) / BLOCK_DAYS);
    for (const candidate of [index, index - 1, index + 1]) {
      const block = ZoneDays.block(timeZone, candidate);
      const day = block.dayOf(instant);
      // A day with a transition may repeat the previous date's last hour (a clock turned back across midnight):
      // Temporal says which date an instant there has.
      if (day !== undefined) return block.offsets[day - block.firstDay] === null ? localEpochDayOf(instant, timeZone) : day;
    }
    return localEpochDayOf(instant, timeZone);
  }

  /** The first instant of a local date (epoch day) in `timeZone`, from the shared blocks. */
  static dayStartOf(epochDay: number, timeZone: string): number {
    if (!Number.isInteger(epochDay)) throw new RangeError(`Invalid date ${epochDay}`);
    return ZoneDays.block(timeZone, Math.floor(epochDay / BLOCK_DAYS)).dayStart(epochDay);
  }

  private static block(timeZone: string, index: number): ZoneDays {
    const key = `${timeZone.toLowerCase()}\u0000${index}`;
    let block = ZoneDays.blocks.get(key);
    if (block === undefined) {
      block = ZoneDays.compute(timeZone, index * BLOCK_DAYS, index * BLOCK_DAYS + BLOCK_DAYS - 1);
      if (ZoneDays.blocks.size >= MAX_BLOCKS) ZoneDays.blocks.delete(ZoneDays.blocks.keys().next().value as string);
    } else {
      ZoneDays.blocks.delete(key); // most recently used last: the first key is the one to go
    }
    ZoneDays.blocks.set(key, block);
    return block;
  }

  private static resolvedOf(timeZone: string): Map<number, number> {
    const key = timeZone.toLowerCase();
    let resolved = ZoneDays.resolvedByZone.get(key);
    if (resolved === undefined || resolved.size >= MAX_RESOLVED) {
      resolved = new Map();
      ZoneDays.resolvedByZone.set(key, resolved);
    }
    return resolved;
  }

  /** The table computed from Temporal alone, without the blocks (a block itself; tests compare the two). */
  static compute(timeZone: string, firstDay: number, lastDay: number): ZoneDays {
    const starts: number[] = [];
    const offsets: (string | null)[] = [];
    let anchored = true;
    let offset = '';
    let nextTransition = Infinity;
    let midnightExists = false;
    for (let day = firstDay; day <= lastDay + 1; day++) {
      if (anchored) {
        const civil = epochDayToCivil(day);
        const zoned = startOfDay(civil, timeZone);
        starts.push(zoned.epochMilliseconds);
        // A date the zone skipped whole (Pacific/Apia's 2011-12-30) "starts" at the next date's midnight: not its own.
        midnightExists =
          zoned.day === civil.day &&
          zoned.month === civil.month &&
          zoned.year === civil.year &&
          zoned.hour === 0 &&
          zoned.minute === 0 &&
          zoned.second === 0 &&
          zoned.millisecond === 0;
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
    return new ZoneDays(timeZone, firstDay, starts, offsets, ZoneDays.resolvedOf(timeZone));
  }

  /** Builds the table for every local date touched by [from, to] (instants). */
  static covering(timeZone: string, from: number, to: number): ZoneDays {
    return ZoneDays.build(timeZone, ZoneDays.localDay(from, timeZone), ZoneDays.localDay(to, timeZone));
  }

  private slice(firstDay: number, lastDay: number): ZoneDays {
    const from = firstDay - this.firstDay;
    return new ZoneDays(
      this.timeZone,
      firstDay,
      this.starts.slice(from, lastDay - this.firstDay + 2),
      this.offsets.slice(from, lastDay - this.firstDay + 1),
      this.resolved,
    );
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

/** First instant of a local date: midnight, or the end of a gap that swallows midnight. */
export function dayStartInstant(date: string, timeZone: string): number {
  return ZoneDays.dayStartOf(isoDateToEpochDay(date), timeZone);
}

export function localDateOf(instant: number, timeZone: string): string {
  return epochDayToIsoDate(ZoneDays.localDay(instant, timeZone));
}

/** Bookings per local date in `timeZone`; a table lookup per distinct date, not per booking. */
export function countByLocalDate(startInstants: readonly number[], timeZone: string): Record<string, number> {
  const counts: Record<string, number> = {};
  const sorted = [...startInstants].sort((a, b) => a - b);
  let date = '';
  let nextDayStart = -Infinity;
  for (const instant of sorted) {
    if (instant >= nextDayStart || Number.isNaN(instant)) {
      const epochDay = ZoneDays.localDay(instant, timeZone);
      date = epochDayToIsoDate(epochDay);
      nextDayStart = ZoneDays.dayStartOf(epochDay + 1, timeZone);
    }
    counts[date] = (counts[date] ?? 0) + 1;
  }
  return counts;
}
