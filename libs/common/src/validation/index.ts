export * from './time-zone.js';
export * from './calendar-date.js';
export * from './id.js';
export * from './nested.js';
export * from './instant.js';
export * from './optional.js';
export * from './locale.js';
