// What other modules may use of this one; they import nothing else from its folder (module-boundaries.spec.ts).
export * from './availability.module.js';
export * from './availability.service.js';
export * from './dto/slots.dto.js';
export * from './slots-reply.js';
export type { HostContactRow } from './slot.read-model.js';
