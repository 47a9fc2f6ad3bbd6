export * from './app-config.js';
