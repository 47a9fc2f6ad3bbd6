export * from './job-loop.js';
export { NotificationListener } from './notification-listener.js';
export { Wakeup } from './wakeup.js';
export * from './periodic-jobs.service.js';
export * from './key-rotation.js';
export * from './jobs.module.js';
export { forEachInBatches } from './batches.js';
export * from './lease-queue.js';
export { GroupCommit } from './group-commit.js';
