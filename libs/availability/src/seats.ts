import { BusyIndex } from './busy.js';
import type { EventTypeRules, SeatedStart, UnavailableReason } from './types.js';

/** Seats taken at a start: its bookings and its live holds. */
export function seatsTaken(seated: SeatedStart): number {
  return seated.booked + seated.holdExpiries.length;
}

/**
 * A host's seated starts of the event type (api-rules.md § Seats and series): each is free at its own start while seats
 * remain, and blocks every other start it reaches like one booking (reason `already_booked`, or `held` when
 * only holds sit there). Without seats on the event type, a seated start blocks its own start too.
 */
export class SeatIndex {
  private constructor(
    private readonly byStart: ReadonlyMap<number, SeatedStart>,
    private readonly booked: BusyIndex,
    private readonly held: BusyIndex,
    private readonly groups: readonly { seated: SeatedStart; index: BusyIndex }[],
    private readonly capacity: number | null,
  ) {}

  static build(seats: readonly SeatedStart[], rules: EventTypeRules, firstStart: number, lastStart: number): SeatIndex {
    const live = seats.filter((seated) => seatsTaken(seated) > 0);
    return new SeatIndex(
      new Map(live.map((seated) => [seated.start, seated])),
      BusyIndex.build(
        live.filter((seated) => seated.booked > 0),
        rules,
        firstStart,
        lastStart,
      ),
      BusyIndex.build(
        live.filter((seated) => seated.booked === 0),
        rules,
        firstStart,
        lastStart,
      ),
      live.map((seated) => ({ seated, index: BusyIndex.build([seated], rules, firstStart, lastStart) })),
      rules.seatsPerSlot ?? null,
    );
  }

  /** Seats taken at exactly `start`. */
  takenAt(start: number): number {
    const seated = this.byStart.get(start);
    return seated === undefined ? 0 : seatsTaken(seated);
  }

  /** Why the seated starts refuse `start`, or null: full there, or another seated start reaches it. */
  refusal(start: number): UnavailableReason | null {
    const own = this.byStart.get(start);
    if (own === undefined || this.capacity === null) {
      if (this.booked.isBlocked(start)) return 'already_booked';
      return this.held.isBlocked(start) ? 'held' : null;
    }
    if (seatsTaken(own) >= this.capacity) return 'already_booked';
    // Rare (a start that has seats): the others, one by one.
    let reason: UnavailableReason | null = null;
    for (const { seated, index } of this.groups) {
      if (seated === own || !index.isBlocked(start)) continue;
      if (seated.booked > 0) return 'already_booked';
      reason = 'held';
    }
    return reason;
  }
}
