import { createEngine, evaluateHostStart, participants, roundRobinOrder, seatOwner, seatsRemaining } from './slots.js';
import { UNAVAILABLE_REASONS } from './types.js';
import type { HostAvailability, StartQuery, StartVerdict, UnavailableReason } from './types.js';
import { findGridDay, prepareHost } from './windows.js';
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
  const reasons = hosts.map((host) => evaluateHostStart(engine, host, start, findGridDay(host, start, engine.step, engine.duration)));

  const seats = (chosen: readonly PreparedHost[]): number | undefined => seatsRemaining(engine, chosen, start);
  switch (engine.rules.schedulingType) {
    case 'one_on_one':
      return verdict(reasons[0], hosts[0].userId, seats(hosts.slice(0, 1)));
    case 'round_robin': {
      // A seated start belongs to the host of its first seat (api-rules.md § Seats and series).
      const owner = seatOwner(engine, hosts, start);
      if (owner >= 0) return verdict(reasons[owner], hosts[owner].userId, seats([hosts[owner]]));
      const free = roundRobinOrder(hosts).find((index) => reasons[index] === null);
      // No free host: report the one that got furthest through the checks.
      return free === undefined ? unavailable(furthest(reasons, Math.max)) : verdict(null, hosts[free].userId, seats([hosts[free]]));
    }
    case 'collective':
      return reasons.every((reason) => reason === null)
        ? verdict(null, hosts[0].userId, seats(hosts))
        : unavailable(furthest(reasons, Math.min));
  }
}

function verdict(reason: UnavailableReason | null, hostUserId: string, seatsRemaining?: number): StartVerdict {
  if (reason !== null) return { available: false, reason };
  return seatsRemaining === undefined ? { available: true, hostUserId } : { available: true, hostUserId, seatsRemaining };
}

function unavailable(reason: UnavailableReason): StartVerdict {
  return { available: false, reason };
}

/** Picks among the failing hosts' reasons by their position in the priority order. */
function furthest(reasons: readonly (UnavailableReason | null)[], pick: (...ranks: number[]) => number): UnavailableReason {
  const ranks = reasons.filter((reason) => reason !== null).map((reason) => UNAVAILABLE_REASONS.indexOf(reason));
  return UNAVAILABLE_REASONS[pick(...ranks)];
}
