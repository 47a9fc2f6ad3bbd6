// What other modules may use of this one; they import nothing else from its folder (module-boundaries.spec.ts).
export * from './booking-series.module.js';
export * from './booking-series.service.js';
export * from './dto/series.dto.js';
