// What other modules may use of this one; they import nothing else from its folder (module-boundaries.spec.ts).
export * from './out-of-office.module.js';
export * from './out-of-office.service.js';
export * from './dto/out-of-office.dto.js';
