import { explainStart } from './explain.js';
import type { SlotQuery, StartQuery, StartVerdict } from './types.js';

/**
 * The query as a routed request sees it (contract § 22): only the routed hosts take part, in the event type's order,
 * each judged by every rule as before (round robin among them; collective: they are the set that must all be free).
 * Stand-ins stay: an absent routed host is still stood in for. Nothing is read again: the same data, fewer hosts.
 */
export function routedQuery<Q extends StartQuery | SlotQuery>(query: Q, routedHostUserIds: readonly string[]): Q {
  const routed = new Set(routedHostUserIds);
  return {
    ...query,
    rules: { ...query.rules, hostUserIds: query.rules.hostUserIds.filter((userId) => routed.has(userId)) },
    hosts: query.hosts.filter((host) => routed.has(host.userId)),
  };
}

/**
 * explainStart for a routed request: the routed hosts' verdict, except that a time they cannot take but another host of
 * the event type could is refused as `not_routed` (the booking would have to leave the route).
 */
export function explainRouted(query: StartQuery, start: number, routedHostUserIds: readonly string[]): StartVerdict {
  const verdict = explainStart(routedQuery(query, routedHostUserIds), start);
  if (verdict.available) return verdict;
  return explainStart(query, start).available ? { available: false, reason: 'not_routed' } : verdict;
}
