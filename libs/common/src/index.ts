export * from './errors/index.js';
export * from './http/index.js';
export * from './config/index.js';
export * from './ids.js';
export * from './clock.js';
export * from './pagination.js';
export * from './auth/index.js';
