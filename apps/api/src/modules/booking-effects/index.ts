// What a booking shows (the host's and the attendee's views, its mails) and what its changes cause (the domain event,
// the mails, the write-back to the hosts' calendars). What other modules may use of it (module-boundaries.spec.ts).
export * from './attendee-views.js';
export * from './booking-effects.module.js';
export * from './booking-effects.service.js';
export * from './booking-views.js';
export type { Contact } from './booking-mail.js';
export * from './dto/booking-views.dto.js';
