/** Where things go in the time grid (ui/week-grid.tsx): pure, so tested without a browser (grid-layout.spec.ts). */
import { addDays, wallMinutes, zonedToInstant } from './time';

const DAY_MINUTES = 24 * 60;

/**
 * The wall-clock minutes [from, to) of the part of [start, end) that falls on `date` in `timeZone`; null when none
 * does. Wall-clock, so a 09:00 meeting sits on the 09:00 row on the day of a DST change too.
 */
export function minutesOn(date: string, timeZone: string, start: string, end: string): [number, number] | null {
  const dayStart = zonedToInstant(`${date}T00:00`, timeZone).getTime();
  const dayEnd = zonedToInstant(`${addDays(date, 1)}T00:00`, timeZone).getTime();
  const from = Math.max(Date.parse(start), dayStart);
  const to = Math.min(Date.parse(end), dayEnd);
  if (!(from < to)) return null;
  const fromMinutes = from === dayStart ? 0 : wallMinutes(new Date(from), timeZone);
  const toMinutes = to === dayEnd ? DAY_MINUTES : wallMinutes(new Date(to), timeZone);
  return [fromMinutes, Math.max(toMinutes, fromMinutes + 1)];
}

export interface Placed<T> {
  value: T;
  from: number;
  to: number;
  lane: number;
  lanes: number;
}

/** Side by side, never on top of one another: each run of overlapping items shares the width in lanes. */
export function layOut<T>(spans: { value: T; from: number; to: number }[]): Placed<T>[] {
  const sorted = [...spans].sort((a, b) => a.from - b.from || b.to - a.to);
  const placed: Placed<T>[] = [];
  let cluster: Placed<T>[] = [];
  let clusterEnd = -1;
  const close = (): void => {
    const lanes = Math.max(1, ...cluster.map((item) => item.lane + 1));
    for (const item of cluster) item.lanes = lanes;
    cluster = [];
  };
  for (const span of sorted) {
    if (span.from >= clusterEnd) {
      close();
      clusterEnd = span.to;
    }
    const laneEnds: number[] = [];
    for (const item of cluster) laneEnds[item.lane] = Math.max(laneEnds[item.lane] ?? -1, item.to);
    let lane = laneEnds.findIndex((laneEnd) => laneEnd <= span.from);
    if (lane < 0) lane = laneEnds.length;
    const item = { ...span, lane, lanes: 1 };
    cluster.push(item);
    placed.push(item);
    clusterEnd = Math.max(clusterEnd, span.to);
  }
  close();
  return placed;
}
