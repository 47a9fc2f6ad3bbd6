export type BookingStatus = 'confirmed' | 'pending' | 'cancelled';

/** The statuses that occupy a host's time (contract section 7, rule 2). */
export const BUSY_BOOKING_STATUSES = ['confirmed', 'pending'] as const satisfies readonly BookingStatus[];

/**
 * The same list as SQL, `('confirmed', 'pending')`, written into statements rather than bound as a
 * parameter: the planner can then use the partial indexes whose predicate is this very list.
 */
export const BUSY_STATUSES_SQL = `(${BUSY_BOOKING_STATUSES.map((status) => `'${status}'`).join(', ')})`;
