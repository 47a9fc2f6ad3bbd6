// What other modules may use of this one; they import nothing else from its folder (module-boundaries.spec.ts).
export * from './calendar-write-back.service.js';
export * from './calendars.module.js';
