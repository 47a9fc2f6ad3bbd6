import { DAY_MS, HOUR_MS, MINUTE_MS, addDays } from './calendar.js';
import type { EventTypeRules, HostAvailability, Slot, SlotQuery, StartQuery, UnavailableReason } from './types.js';
import { prepareHost, standInAt } from './windows.js';
import type { HostDay, PreparedHost, ZoneDaysCache } from './windows.js';
import { dayStartInstant } from './zone-days.js';

/** Everything rule 3 and the grid need, derived once per query. */
export interface Engine {
  readonly rules: EventTypeRules;
  readonly now: number;
  /** First start allowed by the minimum notice. */
  readonly earliest: number;
  /** Last start allowed by the booking window (inclusive). */
  readonly latest: number;
  readonly duration: number;
  readonly step: number;
}

export interface Participant {
  readonly userId: string;
  readonly host: HostAvailability | undefined;
}

export function createEngine({ rules, now }: StartQuery): Engine {
  assertRules(rules);
  return {
    rules,
    now,
    // Rounded so that a fractional notice such as 0.7 h cannot drift by a float ulp.
    earliest: now + Math.round(rules.minimumNoticeHours * HOUR_MS),
    latest: now + rules.bookingWindowDays * DAY_MS,
    duration: rules.durationMinutes * MINUTE_MS,
    step: (rules.slotIntervalMinutes ?? rules.durationMinutes) * MINUTE_MS,
  };
}

/**
 * The one verdict on one host at one start, used by computeSlots for every candidate and by
 * explainStart, so the two cannot disagree. `gridDay` is the host day whose window grid contains
 * the start (undefined when it is off-hours or off-grid).
 */
export function evaluateHostStart(
  engine: Engine,
  host: PreparedHost,
  start: number,
  gridDay: HostDay | undefined,
): UnavailableReason | null {
  if (start < engine.now) return 'in_the_past';
  if (start < engine.earliest) return 'minimum_notice';
  if (start > engine.latest) return 'outside_booking_window';
  if (gridDay === undefined) return 'outside_availability';
  if (host.outOfOffice.isBlocked(start)) return 'out_of_office';
  if (host.busy.isBlocked(start)) return 'already_booked';
  const seated = host.seats.refusal(start);
  if (seated === 'already_booked') return seated;
  if (seated === 'held' || host.held.isBlocked(start)) return 'held';
  if (host.calendarBusy.isBlocked(start)) return 'calendar_conflict';
  // The daily cap counts distinct starts: another seat of a start already taken adds none.
  if (gridDay.capReached && host.seats.takenAt(start) === 0) return 'daily_limit_reached';
  // Likewise the host's own limits across event types: another seat of a start already counted adds none.
  if (gridDay.limitReached && host.seats.takenAt(start) === 0) return 'host_limit_reached';
  return null;
}

/** Seats still free at `start` with these hosts (collective: the fewest of them); undefined without seats. */
export function seatsRemaining(engine: Engine, hosts: readonly PreparedHost[], start: number): number | undefined {
  const capacity = engine.rules.seatsPerSlot ?? null;
  if (capacity === null) return undefined;
  return Math.min(...hosts.map((host) => capacity - host.seats.takenAt(start)));
}

/**
 * Round robin with seats: every seat of a start goes to the host of its first seat (api-rules.md § Seats and series).
 * The index of the first host, in hostUserIds order, with seats taken at `start`; -1 when no host has a seat taken there.
 */
export function seatOwner(engine: Engine, hosts: readonly PreparedHost[], start: number): number {
  if ((engine.rules.seatsPerSlot ?? null) === null) return -1;
  return hosts.findIndex((host) => host.seats.takenAt(start) > 0);
}

/** Hosts that take part, in hostUserIds order; one_on_one uses only its single host. */
export function participants({ rules, hosts }: StartQuery): Participant[] {
  const ids = [...new Set(rules.schedulingType === 'one_on_one' ? rules.hostUserIds.slice(0, 1) : rules.hostUserIds)];
  const byId = new Map(hosts.map((host) => [host.userId, host]));
  return ids.map((userId) => ({ userId, host: byId.get(userId) }));
}

/** Round robin preference: never booked first, then least recently booked, then hostUserIds order. */
export function roundRobinOrder(hosts: readonly Pick<PreparedHost, 'lastBookedAt'>[]): number[] {
  const rank = (host: Pick<PreparedHost, 'lastBookedAt'>): number => host.lastBookedAt ?? -Infinity;
  return hosts.map((_, index) => index).sort((a, b) => rank(hosts[a]) - rank(hosts[b]) || a - b);
}

export function computeSlots(query: SlotQuery): Slot[] {
  const engine = createEngine(query);
  const { startDate, endDate, timeZone } = query.range;
  const rangeStart = dayStartInstant(startDate, timeZone);
  const rangeEnd = dayStartInstant(addDays(endDate, 1), timeZone);
  const from = Math.max(rangeStart, engine.earliest);
  const to = Math.min(rangeEnd - 1, engine.latest);
  if (from > to) return [];

  const zoneCache: ZoneDaysCache = new Map();
  const hosts = participants(query).map(({ userId, host }) => prepareHost(userId, host, engine.rules, from, to, zoneCache));
  const standIn = standIns(query, (userId, host) => prepareHost(userId, host, engine.rules, from, to, zoneCache), hosts);
  const lists = hosts.map((host) => hostStarts(engine, host, from, to, standIn));
  const starts = lists.map((list) => list.starts);
  switch (engine.rules.schedulingType) {
    case 'one_on_one':
      return hosts.length === 0 ? [] : toSlots(engine, starts[0], hosts, lists[0]);
    case 'round_robin':
      return roundRobin(engine, hosts, lists);
    case 'collective':
      return hosts.length === 0 ? [] : toSlots(engine, intersect(starts), hosts, lists[0]);
  }
}

/** A host's free starts, and who takes those that fall in a redirected absence (its stand-in). */
interface HostStarts {
  readonly starts: number[];
  readonly standIns: ReadonlyMap<number, string>;
}

/**
 * The stand-ins' prepared availability by user id, each prepared once: from `query.standIns`, or a host's own when
 * the stand-in is a host too; a member with no availability given offers nothing.
 */
export function standIns(
  query: StartQuery,
  prepare: (userId: string, host: HostAvailability | undefined) => PreparedHost,
  /** Hosts already prepared for the same span: a stand-in who is one of them is not prepared again. */
  preparedHosts: readonly PreparedHost[] = [],
): (userId: string) => PreparedHost {
  const given = new Map([...query.hosts, ...(query.standIns ?? [])].map((host) => [host.userId, host]));
  const prepared = new Map<string, PreparedHost>(preparedHosts.map((host) => [host.userId, host]));
  return (userId) => {
    let host = prepared.get(userId);
    if (host === undefined) {
      host = prepare(userId, given.get(userId));
      prepared.set(userId, host);
    }
    return host;
  };
}

/**
 * The host's own free starts (none overlaps an absence) and, during its absences with a stand-in, the stand-in's own
 * free starts whose meeting overlaps that absence, judged on the stand-in's availability alone.
 */
function hostStarts(engine: Engine, host: PreparedHost, from: number, to: number, standIn: (userId: string) => PreparedHost): HostStarts {
  const own = freeStarts(engine, host, from, to);
  if (host.redirects.length === 0) return { starts: own, standIns: new Map() };
  const taken = new Map<number, string>();
  // Only the starts whose meeting overlaps an absence are the stand-in's: each absence's own span is read.
  for (const redirect of host.redirects) {
    const first = Math.max(from, redirect.start - engine.duration + 1);
    const last = Math.min(to, redirect.end - 1);
    if (first > last) continue;
    for (const start of freeStarts(engine, standIn(redirect.userId), first, last)) {
      if (!taken.has(start) && standInAt(host, start, engine.duration) === redirect.userId) taken.set(start, redirect.userId);
    }
  }
  if (taken.size === 0) return { starts: own, standIns: taken };
  return { starts: [...new Set([...own, ...taken.keys()])].sort((a, b) => a - b), standIns: taken };
}

/** The host's own slot starts in [from, to], ascending and unique. */
function freeStarts(engine: Engine, host: PreparedHost, from: number, to: number): number[] {
  const { step, duration } = engine;
  const starts: number[] = [];
  let ordered = true;
  for (const day of host.days) {
    for (const window of day.windows) {
      const skipped = window.start < from ? Math.ceil((from - window.start) / step) : 0;
      for (let start = window.start + skipped * step; start <= to && start + duration <= window.end; start += step) {
        if (evaluateHostStart(engine, host, start, day) !== null) continue;
        if (starts.length > 0 && start <= starts[starts.length - 1]) ordered = false;
        starts.push(start);
      }
    }
  }
  // Only overlapping windows (which the API refuses) can break the order.
  return ordered ? starts : [...new Set(starts)].sort((a, b) => a - b);
}

/** Slots of the first host or its stand-in (one on one, collective), with the seats left at every host when seated. */
function toSlots(engine: Engine, starts: readonly number[], hosts: readonly PreparedHost[], first: HostStarts): Slot[] {
  const hostOf = (start: number): string => first.standIns.get(start) ?? hosts[0].userId;
  if ((engine.rules.seatsPerSlot ?? null) === null)
    return starts.map((start) => ({ start, end: start + engine.duration, hostUserId: hostOf(start) }));
  return starts.map((start) => ({
    start,
    end: start + engine.duration,
    hostUserId: hostOf(start),
    seatsRemaining: seatsRemaining(engine, hosts, start),
  }));
}

/** k-way merge of the hosts' sorted starts; at each start the first free host in preference order wins. */
function roundRobin(engine: Engine, hosts: readonly PreparedHost[], lists: readonly HostStarts[]): Slot[] {
  const starts = lists.map((list) => list.starts);
  const order = roundRobinOrder(hosts);
  const heads = hosts.map(() => 0);
  const slots: Slot[] = [];
  for (;;) {
    let next = Infinity;
    for (let host = 0; host < hosts.length; host++) {
      if (heads[host] < starts[host].length) next = Math.min(next, starts[host][heads[host]]);
    }
    if (next === Infinity) return slots;
    let chosen = -1;
    const owner = seatOwner(engine, hosts, next);
    for (const host of order) {
      if (starts[host][heads[host]] !== next) continue;
      if (chosen < 0 && (owner < 0 || owner === host)) chosen = host;
      heads[host]++;
    }
    // A seated start whose first seat went to a host not free there now is not offered by another.
    if (chosen < 0) continue;
    const seats = seatsRemaining(engine, [hosts[chosen]], next);
    slots.push({
      start: next,
      end: next + engine.duration,
      hostUserId: lists[chosen].standIns.get(next) ?? hosts[chosen].userId,
      ...(seats === undefined ? {} : { seatsRemaining: seats }),
    });
  }
}

function intersect(lists: readonly number[][]): number[] {
  const heads = lists.map(() => 0);
  return lists[0].filter((start) =>
    lists.every((list, index) => {
      while (heads[index] < list.length && list[heads[index]] < start) heads[index]++;
      return list[heads[index]] === start;
    }),
  );
}

function assertRules(rules: EventTypeRules): void {
  const positive = { durationMinutes: rules.durationMinutes, slotIntervalMinutes: rules.slotIntervalMinutes ?? 1 };
  const nonNegative = {
    bufferBeforeMinutes: rules.bufferBeforeMinutes,
    bufferAfterMinutes: rules.bufferAfterMinutes,
    minimumNoticeHours: rules.minimumNoticeHours,
    bookingWindowDays: rules.bookingWindowDays,
  };
  for (const [field, value] of Object.entries(positive)) {
    if (!Number.isFinite(value) || value <= 0) throw new RangeError(`${field} must be a positive number, got ${value}`);
  }
  for (const [field, value] of Object.entries(nonNegative)) {
    if (!Number.isFinite(value) || value < 0) throw new RangeError(`${field} must not be negative, got ${value}`);
  }
}
