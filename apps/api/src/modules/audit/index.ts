// What other modules may use of this one; they import nothing else from its folder (module-boundaries.spec.ts).
export { AuditTrail, type AuditActor, type AuditDescription } from './audit-trail.service.js';
export { changesBetween, type AuditChanges } from './redact.js';
export { AuditModule } from './audit.module.js';
