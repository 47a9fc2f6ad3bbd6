export { IdempotencyModule } from './idempotency.module.js';
export {
  type ErasedBookingReader,
  fingerprintOf,
  IdempotencyService,
  type IdempotentWork,
  type StoredResponse,
} from './idempotency.service.js';
export { IDEMPOTENCY_HEADER, idempotencyKey, sendStored } from './idempotency-http.js';
