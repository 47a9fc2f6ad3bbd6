// What other modules may use of this one; they import nothing else from its folder (module-boundaries.spec.ts).
export * from './dto/event-type.dto.js';
export * from './event-type-row.js';
export { type EventTypeDetails, type EventTypeSummary, schedulingDetailsOf } from './event-type-views.js';
export * from './event-types.module.js';
export * from './event-types.service.js';
export * from './questions.js';
export { locationFor } from './meeting-link.js';
export * from './reminders.js';
export * from './change-policy.js';
