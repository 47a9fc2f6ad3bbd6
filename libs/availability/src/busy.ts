import { MINUTE_MS } from './calendar.js';
import type { BusyInterval, EventTypeRules } from './types.js';

/**
 * Rule 2 turned into "forbidden start instants". A start s conflicts with busy b when
 *   [s - before, s + duration + after) overlaps [b.start, b.end)               (our buffers), or
 *   [s, s + duration) overlaps [b.start - b.before, b.end + b.after)           (its buffers).
 * Both hold on an open interval of s, and both intervals contain (b.start - duration, b.end), so their
 * union is the single open interval
 *   (b.start - duration - max(after, b.before), b.end + max(before, b.after)).
 * After merging these, one sorted pass answers each candidate in amortised O(1).
 */
export class BusyIndex {
  private cursor = 0;
  private lastQuery = -Infinity;

  private constructor(
    private readonly lows: readonly number[],
    private readonly highs: readonly number[],
  ) {}

  /** Only intervals that can block a start in [firstStart, lastStart] are kept. */
  static build(busy: readonly BusyInterval[], rules: EventTypeRules, firstStart: number, lastStart: number): BusyIndex {
    const duration = rules.durationMinutes * MINUTE_MS;
    const blocked: [number, number][] = [];
    for (const interval of busy) {
      if (interval.end <= interval.start) continue;
      const low = interval.start - duration - Math.max(rules.bufferAfterMinutes, interval.bufferBeforeMinutes) * MINUTE_MS;
      const high = interval.end + Math.max(rules.bufferBeforeMinutes, interval.bufferAfterMinutes) * MINUTE_MS;
      if (high > firstStart && low < lastStart) blocked.push([low, high]);
    }
    blocked.sort((a, b) => a[0] - b[0]);
    return BusyIndex.merged(blocked);
  }

  /** Touching open intervals stay apart: their shared end point is a free start. */
  private static merged(sorted: readonly [number, number][]): BusyIndex {
    const lows: number[] = [];
    const highs: number[] = [];
    for (const [low, high] of sorted) {
      const last = highs.length - 1;
      if (last >= 0 && low < highs[last]) highs[last] = Math.max(highs[last], high);
      else {
        lows.push(low);
        highs.push(high);
      }
    }
    return new BusyIndex(lows, highs);
  }

  /** Fast when queried in ascending order; any order stays correct. */
  isBlocked(start: number): boolean {
    if (start < this.lastQuery) this.cursor = this.firstEndingAfter(start);
    this.lastQuery = start;
    while (this.cursor < this.highs.length && this.highs[this.cursor] <= start) this.cursor++;
    return this.cursor < this.lows.length && this.lows[this.cursor] < start;
  }

  private firstEndingAfter(start: number): number {
    let low = 0;
    let high = this.highs.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.highs[middle] <= start) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}
