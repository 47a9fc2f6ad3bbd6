export * from './time-zone.js';
