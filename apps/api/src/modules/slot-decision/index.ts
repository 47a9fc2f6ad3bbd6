// The slot decision: what other modules may use of it; they import nothing else from its folder (module-boundaries.spec.ts).
export * from './slot-decision.module.js';
export * from './slot-decision.service.js';
