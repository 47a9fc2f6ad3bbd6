// The bookings core: the booking rows (bookings, each host's occupancy, holds), written inside the slot decision
// (slot-decision). What other modules may use of it; they import nothing else from its folder (module-boundaries.spec.ts).
export * from './attendee-erasure.js';
export * from './booking-access.js';
export * from './booking-answers.js';
export * from './booking-core.module.js';
export * from './booking-record.js';
export * from './booking-rows.service.js';
export * from './dto/booking-request.dto.js';
export * from './hold-rows.service.js';
