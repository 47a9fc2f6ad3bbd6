// What other modules may use of this one; they import nothing else from its folder (module-boundaries.spec.ts).
export { CalendarsModule } from './calendars.module.js';
export { type CalendarDestination, CalendarDestinations } from './calendar-destinations.service.js';
