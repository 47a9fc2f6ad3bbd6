// What other modules may use of this one; they import nothing else from its folder (module-boundaries.spec.ts).
export { RateLimitGuard } from './rate-limit.guard.js';
export * from './rate-limit.module.js';
