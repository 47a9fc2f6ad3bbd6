// What other modules may use of this one; they import nothing else from its folder (module-boundaries.spec.ts).
export * from './booking-create.service.js';
export * from './booking-queries.service.js';
export * from './bookings.module.js';
export * from './dto/booking.dto.js';
export { type BookingVisitor, VisitorBookingsService } from './visitor-bookings.service.js';
