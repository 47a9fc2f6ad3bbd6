// What other modules may use of this one; they import nothing else from its folder (module-boundaries.spec.ts).
export * from './dto/team.dto.js';
export * from './invitations.service.js';
export * from './team-views.js';
export * from './team.module.js';
export * from './team.service.js';
