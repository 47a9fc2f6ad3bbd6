// What other modules may use of this one; they import nothing else from its folder (module-boundaries.spec.ts).
export * from './routing-forms.module.js';
export * from './routing-forms.service.js';
export * from './routed-bookings.service.js';
