import { addDays, DAY_MS } from './calendar.js';
import { computeSlots, createEngine } from './slots.js';
import type { HostAvailability, Slot, SlotQuery } from './types.js';
import { dayStartInstant, localDateOf } from './zone-days.js';

/**
 * The first instant at which the passing of time alone changes what `computeSlots(query)` returned
 * (`slots`), everything else staying as it is: a listed start drops out when it falls inside the minimum
 * notice (or into the past), and a start beyond the booking window comes in when the window reaches it.
 * Before that instant, the same query with a later `now` gives the same slots; a cache keeps an answer
 * until then. Starts that could come in are found by computing the day past the window with every
 * host's busy time and daily counts removed (only more starts, so the instant is never late); when
 * there is none, the answer holds a day. A hold stops blocking when it expires: the answer ends at the
 * first expiry of a hold it saw, the stand-ins' (who take an absent host's place) as well as the hosts'.
 */
export function slotsValidUntil(query: SlotQuery, slots: readonly Slot[]): number {
  const engine = createEngine(query);
  const notice = engine.earliest - engine.now;
  let until = Infinity;
  if (slots.length > 0) until = Math.min(...slots.map((slot) => slot.start)) - notice + 1;
  for (const host of [...query.hosts, ...(query.standIns ?? [])]) {
    for (const hold of host.held ?? []) if (hold.expiresAt > engine.now) until = Math.min(until, hold.expiresAt);
    for (const seated of host.seats ?? [])
      for (const expiry of seated.holdExpiries) if (expiry > engine.now) until = Math.min(until, expiry);
    // A hold counted toward the host's limits frees the day or week when it expires.
    for (const expiry of host.bookingLimits?.holdExpiries ?? []) if (expiry > engine.now) until = Math.min(until, expiry);
  }

  const { range } = query;
  const rangeEnd = dayStartInstant(addDays(range.endDate, 1), range.timeZone);
  if (rangeEnd - 1 > engine.latest) {
    const firstDate = localDateOf(engine.latest, range.timeZone);
    const startDate = firstDate > range.startDate ? firstDate : range.startDate;
    const free = (host: HostAvailability): HostAvailability => ({
      ...host,
      busy: [],
      held: [],
      seats: [],
      externalBusy: [],
      bookingsPerDate: {},
      bookingLimits: null,
    });
    const beyond = computeSlots({
      rules: { ...query.rules, bookingWindowDays: query.rules.bookingWindowDays + 1 },
      now: query.now,
      hosts: query.hosts.map(free),
      ...(query.standIns ? { standIns: query.standIns.map(free) } : {}),
      range: { ...range, startDate },
    }).filter((slot) => slot.start > engine.latest);
    const windowMs = engine.latest - engine.now;
    until = Math.min(until, beyond.length > 0 ? Math.min(...beyond.map((slot) => slot.start)) - windowMs : engine.now + DAY_MS);
  }
  return until;
}
