// What other modules may use of this one; they import nothing else from its folder (module-boundaries.spec.ts).
export * from './erasure.module.js';
export * from './erasure.service.js';
export * from './dto/erasure.dto.js';
