import { explainStart } from './explain.js';
import { roundRobinOrder } from './slots.js';
import type { StartQuery, StartVerdict, UnavailableReason } from './types.js';

/** Later occurrences of a series ignore the booking window (api-rules.md § Seats and series): this many days stand for "none". */
const NO_WINDOW_DAYS = 365 * 200;

export interface RefusedOccurrence {
  /** 0-based position in the series. */
  readonly index: number;
  readonly start: number;
  readonly reason: UnavailableReason;
}

export type SeriesVerdict =
  { readonly available: true; readonly hostUserId: string } | { readonly available: false; readonly refused: readonly RefusedOccurrence[] };

/**
 * Whether every start of a series can be booked, each by the rules of a single booking (explainStart), the
 * booking window applying to the first only; and with which host. Round robin gives the whole series to one
 * host free at every start, the first in rotation order; when none is, the refusals reported are those of the
 * host that came closest (fewest refused starts, then rotation order), or, for starts no host has free, the
 * round-robin verdict of that start.
 */
export function explainSeries(query: StartQuery, starts: readonly number[]): SeriesVerdict {
  const later: StartQuery = { ...query, rules: { ...query.rules, bookingWindowDays: NO_WINDOW_DAYS } };
  // A host's booking limits count the series' own earlier occurrences too (contract § 17), when they go to that host.
  const withEarlier = (q: StartQuery, index: number): StartQuery =>
    index === 0 || !q.hosts.some((host) => host.bookingLimits)
      ? q
      : {
          ...q,
          hosts: q.hosts.map((host) =>
            host.bookingLimits
              ? { ...host, bookingLimits: { ...host.bookingLimits, starts: [...host.bookingLimits.starts, ...starts.slice(0, index)] } }
              : host,
          ),
        };
  const judge = (first: StartQuery, rest: StartQuery, counted: boolean): StartVerdict[] =>
    starts.map((start, index) => {
      const at = index === 0 ? first : rest;
      return explainStart(counted ? withEarlier(at, index) : at, start);
    });
  const refusals = (verdicts: readonly StartVerdict[]): RefusedOccurrence[] =>
    verdicts.flatMap((verdict, index) => (verdict.available ? [] : [{ index, start: starts[index], reason: verdict.reason }]));

  // Round robin's first pass asks whether any host is free at each start; the earlier occurrences are counted per host below.
  const overall = judge(query, later, query.rules.schedulingType !== 'round_robin');
  if (query.rules.schedulingType !== 'round_robin') {
    const refused = refusals(overall);
    return refused.length > 0 || !overall[0].available
      ? { available: false, refused }
      : { available: true, hostUserId: overall[0].hostUserId };
  }
  const openToNone = refusals(overall);
  if (openToNone.length > 0) return { available: false, refused: openToNone };
  const hosts = query.rules.hostUserIds.map((userId) => ({
    userId,
    lastBookedAt: query.hosts.find((h) => h.userId === userId)?.lastBookedAt ?? null,
  }));
  let closest: RefusedOccurrence[] | null = null;
  for (const index of roundRobinOrder(hosts)) {
    const only = (q: StartQuery): StartQuery => ({
      ...q,
      rules: { ...q.rules, schedulingType: 'one_on_one', hostUserIds: [hosts[index].userId] },
      hosts: q.hosts.filter((host) => host.userId === hosts[index].userId),
    });
    const refused = refusals(judge(only(query), only(later), true));
    if (refused.length === 0) return { available: true, hostUserId: hosts[index].userId };
    if (closest === null || refused.length < closest.length) closest = refused;
  }
  return { available: false, refused: closest ?? [] };
}
