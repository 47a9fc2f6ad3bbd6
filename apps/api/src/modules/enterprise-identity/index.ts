// What other modules may use of this one; they import nothing else from its folder (module-boundaries.spec.ts).
export * from './enterprise-identity.module.js';
