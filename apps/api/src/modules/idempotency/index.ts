export { IdempotencyModule } from './idempotency.module.js';
export { fingerprintOf, IdempotencyService, type IdempotentWork, type StoredResponse } from './idempotency.service.js';
