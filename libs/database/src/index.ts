export * from './data-source-options.js';
export * from './naming-strategy.js';
export * from './migrate.js';
export * from './embedded-postgres.js';
export * from './migrations/index.js';
export * from './transaction-host.js';
