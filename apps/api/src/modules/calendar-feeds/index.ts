// What other modules may use of this one; they import nothing else from its folder (module-boundaries.spec.ts).
export * from './calendar-feeds.module.js';
