// What other modules may use of this one; they import nothing else from its folder (module-boundaries.spec.ts).
export { CalendarWritesModule } from './calendar-writes.module.js';
export { type BookingForCalendar, CalendarWriteBack } from './calendar-write-back.service.js';
