import { explainStart, occupiedHosts } from './explain.js';
import { roundRobinOrder } from './slots.js';
import type { HostAvailability, StartQuery, StartVerdict, UnavailableReason } from './types.js';

/** Later occurrences of a series ignore the booking window (api-rules.md § Seats and series): this many days stand for "none". */
const NO_WINDOW_DAYS = 365 * 200;

export interface RefusedOccurrence {
  /** 0-based position in the series. */
  readonly index: number;
  readonly start: number;
  readonly reason: UnavailableReason;
}

export type SeriesVerdict =
  | {
      readonly available: true;
      /** Per occurrence, the hosts its booking occupies, the primary first (occupiedHosts of its verdict). */
      readonly hostUserIds: readonly (readonly string[])[];
    }
  | { readonly available: false; readonly refused: readonly RefusedOccurrence[] };

/**
 * Whether every start of a series can be booked, each by the rules of a single booking (explainStart), the
 * booking window applying to the first only; and with which host. Round robin gives the whole series to one
 * host free at every start, the first in rotation order; when none is, the refusals reported are those of the
 * host that came closest (fewest refused starts, then rotation order), or, for starts no host has free, the
 * round-robin verdict of that start. An occurrence whose meeting overlaps a host's absence with a stand-in is the
 * stand-in's, as a single booking's would be (explainStart): each occurrence has its own hosts.
 */
export function explainSeries(query: StartQuery, starts: readonly number[]): SeriesVerdict {
  const later: StartQuery = { ...query, rules: { ...query.rules, bookingWindowDays: NO_WINDOW_DAYS } };
  // A member's booking limits count the series' own earlier occurrences too (contract § 17), those that go to that
  // member (a stand-in's during its host's absence); a refused one counts for no one (it goes to no one).
  const withEarlier = (q: StartQuery, earlier: readonly StartVerdict[]): StartQuery => {
    if (earlier.length === 0 || ![...q.hosts, ...(q.standIns ?? [])].some((host) => host.bookingLimits)) return q;
    const counted = (host: HostAvailability): HostAvailability => {
      if (!host.bookingLimits) return host;
      const theirs = earlier.flatMap((verdict, index) =>
        verdict.available && occupiedHosts(q.rules, verdict).includes(host.userId) ? [starts[index]] : [],
      );
      return { ...host, bookingLimits: { ...host.bookingLimits, starts: [...host.bookingLimits.starts, ...theirs] } };
    };
    return { ...q, hosts: q.hosts.map(counted), ...(q.standIns ? { standIns: q.standIns.map(counted) } : {}) };
  };
  const judge = (first: StartQuery, rest: StartQuery, counted: boolean): StartVerdict[] => {
    const verdicts: StartVerdict[] = [];
    for (const [index, start] of starts.entries()) {
      const at = index === 0 ? first : rest;
      verdicts.push(explainStart(counted ? withEarlier(at, verdicts) : at, start));
    }
    return verdicts;
  };
  const refusals = (verdicts: readonly StartVerdict[]): RefusedOccurrence[] =>
    verdicts.flatMap((verdict, index) => (verdict.available ? [] : [{ index, start: starts[index], reason: verdict.reason }]));

  // Round robin's first pass asks whether any host is free at each start; the earlier occurrences are counted per host below.
  const overall = judge(query, later, query.rules.schedulingType !== 'round_robin');
  if (query.rules.schedulingType !== 'round_robin') {
    const refused = refusals(overall);
    return refused.length > 0 ? { available: false, refused } : { available: true, hostUserIds: occupied(query, overall) };
  }
  const openToNone = refusals(overall);
  if (openToNone.length > 0) return { available: false, refused: openToNone };
  const hosts = query.rules.hostUserIds.map((userId) => ({
    userId,
    lastBookedAt: query.hosts.find((h) => h.userId === userId)?.lastBookedAt ?? null,
  }));
  let closest: RefusedOccurrence[] | null = null;
  for (const index of roundRobinOrder(hosts)) {
    // The other hosts stay at hand as stand-ins: one of them may take this host's place during its absence.
    const only = (q: StartQuery): StartQuery => ({
      ...q,
      rules: { ...q.rules, schedulingType: 'one_on_one', hostUserIds: [hosts[index].userId] },
      hosts: q.hosts.filter((host) => host.userId === hosts[index].userId),
      standIns: [...(q.standIns ?? []), ...q.hosts.filter((host) => host.userId !== hosts[index].userId)],
    });
    const verdicts = judge(only(query), only(later), true);
    const refused = refusals(verdicts);
    if (refused.length === 0) return { available: true, hostUserIds: occupied(only(query), verdicts) };
    if (closest === null || refused.length < closest.length) closest = refused;
  }
  return { available: false, refused: closest ?? [] };
}

/** Each occurrence's hosts, when every verdict is available. */
function occupied(query: StartQuery, verdicts: readonly StartVerdict[]): string[][] {
  return verdicts.map((verdict) => (verdict.available ? occupiedHosts(query.rules, verdict) : []));
}
