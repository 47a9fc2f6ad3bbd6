import ICAL from 'ical.js';
import { ianaZone } from './zones.js';

export const SERIES_FREQUENCIES = ['daily', 'weekly', 'monthly'] as const;
export type SeriesFrequency = (typeof SERIES_FREQUENCIES)[number];

export interface SeriesRule {
  readonly frequency: SeriesFrequency;
  /** Every `interval` days, weeks or months (1..). */
  readonly interval: number;
  /** Occurrences wanted, the first included (1..). */
  readonly count: number;
}

const FREQUENCIES: Record<SeriesFrequency, string> = { daily: 'DAILY', weekly: 'WEEKLY', monthly: 'MONTHLY' };

/**
 * The starts (epoch ms) of a series that begins at `first`, in the wall-clock time of `timeZone`, by the same
 * RFC 5545 recurrence iterator that expands the hosts' calendars (ical.js, in a floating copy of the first
 * start): a weekly 10:00 stays at 10:00 across DST, and a monthly series on the 31st skips the months without
 * one (still giving `count` starts). A wall time in a DST gap is read with the offset before the gap.
 */
export function seriesStarts(first: number, timeZone: string, rule: SeriesRule): number[] {
  const zone = ianaZone(timeZone);
  const wall = zone.toWall(first);
  const recur = ICAL.Recur.fromData({ freq: FREQUENCIES[rule.frequency], interval: rule.interval, count: rule.count });
  const iterator = recur.iterator(new ICAL.Time({ ...wall, isDate: false }, ICAL.Timezone.localTimezone));
  const starts: number[] = [];
  // The first start keeps its milliseconds; the wall clock has whole seconds.
  const fraction = first - zone.toInstant(wall);
  for (let next = iterator.next(); next && starts.length < rule.count; next = iterator.next()) {
    const { year, month, day, hour, minute, second } = next;
    starts.push(zone.toInstant({ year, month, day, hour, minute, second }) + fraction);
  }
  return starts;
}
