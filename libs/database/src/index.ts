export * from './data-source-options.js';
export * from './naming-strategy.js';
export * from './migrate.js';
export * from './embedded-postgres.js';
export * from './migrations/index.js';
export * from './transaction-host.js';
export { inlineParameters, type Statement } from './inline-parameters.js';
export { LockingReadError, takesLocks } from './locking-reads.js';
export * from './replica-reads.js';
