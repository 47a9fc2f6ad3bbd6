// What other modules may use of this one; they import nothing else from its folder (module-boundaries.spec.ts).
export * from './dto/hold.dto.js';
export * from './holds.module.js';
export * from './holds.service.js';
