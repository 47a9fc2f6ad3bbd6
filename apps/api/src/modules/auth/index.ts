// What other modules may use of this one; they import nothing else from its folder (module-boundaries.spec.ts).
export * from './auth.module.js';
export * from './auth-housekeeping.js';
export * from './directory-users.service.js';
export * from './dto/auth.dto.js';
export * from './guards/publishable-key.gate.js';
export * from './login.service.js';
export * from './sessions.service.js';
