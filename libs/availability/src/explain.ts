import { createEngine, evaluateHostStart, participants, roundRobinOrder, seatOwner, seatsRemaining, standIns } from './slots.js';
import { UNAVAILABLE_REASONS } from './types.js';
import type { EventTypeRules, HostAvailability, StartQuery, StartVerdict, UnavailableReason } from './types.js';
import { findGridDay, prepareHost, standInAt } from './windows.js';
import type { PreparedHost, ZoneDaysCache } from './windows.js';

/**
 * Whether `start` is the start of a slot computeSlots would list, and if not, why. Each host is
 * judged by the same evaluateHostStart that computeSlots applies to every candidate.
 */
export function explainStart(input: StartQuery, start: number): StartVerdict {
  const engine = createEngine(input);
  const zoneCache: ZoneDaysCache = new Map();
  const prepare = (userId: string, host: HostAvailability | undefined): PreparedHost =>
    prepareHost(userId, host, engine.rules, start, start, zoneCache);
  const listed = participants(input).map(({ userId, host }) => prepare(userId, host));
  // With no hosts at all, a host without schedule still yields the right reason (time rules first).
  const hosts = listed.length > 0 ? listed : [prepare('', undefined)];
  const standIn = standIns(input, prepare);
  // During an absence with a stand-in, the stand-in is judged in the host's place and takes the booking.
  const judged = hosts.map((host) => {
    const userId = standInAt(host, start, engine.duration);
    return userId === undefined ? host : standIn(userId);
  });
  const reasons = judged.map((host) => evaluateHostStart(engine, host, start, findGridDay(host, start, engine.step, engine.duration)));

  const seats = (chosen: readonly PreparedHost[]): number | undefined => seatsRemaining(engine, chosen, start);
  switch (engine.rules.schedulingType) {
    case 'one_on_one':
      return verdict(reasons[0], judged[0].userId, seats(hosts.slice(0, 1)));
    case 'round_robin': {
      // A seated start belongs to the host of its first seat (api-rules.md § Seats and series).
      const owner = seatOwner(engine, hosts, start);
      if (owner >= 0) return verdict(reasons[owner], judged[owner].userId, seats([hosts[owner]]));
      const free = roundRobinOrder(hosts).find((index) => reasons[index] === null);
      // No free host: report the one that got furthest through the checks.
      return free === undefined ? unavailable(furthest(reasons, Math.max)) : verdict(null, judged[free].userId, seats([hosts[free]]));
    }
    case 'collective': {
      if (reasons.some((reason) => reason !== null)) return unavailable(furthest(reasons, Math.min));
      const available = { available: true as const, hostUserId: judged[0].userId, ...optionalSeats(seats(hosts)) };
      // With a stand-in in an absent host's place, the booking occupies the stand-in instead.
      const stood = judged.some((host, index) => host !== hosts[index]);
      return stood ? { ...available, hostUserIds: [...new Set(judged.map((host) => host.userId))] } : available;
    }
  }
}

/**
 * The hosts a booking at an available start occupies, the primary first: in a collective event type every host (a
 * stand-in in an absent host's place), otherwise the one chosen (a stand-in during its host's absence).
 */
export function occupiedHosts(rules: EventTypeRules, verdict: Extract<StartVerdict, { available: true }>): string[] {
  if (verdict.hostUserIds) return [...verdict.hostUserIds];
  return rules.schedulingType === 'collective' ? [...new Set(rules.hostUserIds)] : [verdict.hostUserId];
}

function verdict(reason: UnavailableReason | null, hostUserId: string, seatsRemaining?: number): StartVerdict {
  if (reason !== null) return { available: false, reason };
  return seatsRemaining === undefined ? { available: true, hostUserId } : { available: true, hostUserId, seatsRemaining };
}

function optionalSeats(seatsRemaining: number | undefined): { seatsRemaining?: number } {
  return seatsRemaining === undefined ? {} : { seatsRemaining };
}

function unavailable(reason: UnavailableReason): StartVerdict {
  return { available: false, reason };
}

/** Picks among the failing hosts' reasons by their position in the priority order. */
function furthest(reasons: readonly (UnavailableReason | null)[], pick: (...ranks: number[]) => number): UnavailableReason {
  const ranks = reasons.filter((reason) => reason !== null).map((reason) => UNAVAILABLE_REASONS.indexOf(reason));
  return UNAVAILABLE_REASONS[pick(...ranks)];
}
