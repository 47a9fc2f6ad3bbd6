export type BookingStatus = 'confirmed' | 'pending' | 'cancelled';

/** The statuses that occupy a host's time (api-rules.md § Slots, rule 2). */
export const BUSY_BOOKING_STATUSES = ['confirmed', 'pending'] as const satisfies readonly BookingStatus[];

/**
 * The same list as SQL, `('confirmed', 'pending')`, written into statements rather than bound as a
 * parameter: the planner can then use the partial indexes whose predicate is this very list.
 */
export const BUSY_STATUSES_SQL = `(${BUSY_BOOKING_STATUSES.map((status) => `'${status}'`).join(', ')})`;

/** A booking_hosts row is a booking's, or a hold's (api-rules.md § Browser booking) while it lives. */
export type OccupancyStatus = BookingStatus | 'held';

/** What the exclusion constraint refuses to overlap: bookings that occupy time and holds (live or not yet deleted). */
export const OCCUPYING_STATUSES_SQL = `('confirmed', 'pending', 'held')`;
