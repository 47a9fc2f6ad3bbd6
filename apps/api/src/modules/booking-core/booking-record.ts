import type { Booking } from './entities/booking.entity.js';
import type { Hold } from './entities/hold.entity.js';

export type { BookingStatus, CancelledBy } from './entities/booking.entity.js';

/** A booking's row as plain data: what other modules read and hand back, never the entity itself. */
export type BookingRecord = { [K in keyof Booking]: Booking[K] };

/** A hold's row as plain data (its occupancy is in booking_hosts, with status `held`). */
export type HoldRecord = { [K in keyof Hold]: Hold[K] };

export interface BookingWithHosts {
  booking: BookingRecord;
  /** The primary first, then the others in the order they were booked in. */
  hostUserIds: string[];
}
