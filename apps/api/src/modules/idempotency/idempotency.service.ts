import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AppError, Clock, ErrorCode, renderError, type TenantScope } from '@app/common';
import { PeriodicJobs } from '../../jobs/index.js';
import { TransactionHost } from '@app/database';
import { IdempotencyRepository, isErasedReplay } from './idempotency.repository.js';
import { AuditTrail } from '../audit/index.js';

const TTL_MS = 24 * 3600 * 1000;
const CLEANUP_INTERVAL_MS = 10 * 60 * 1000;

export interface StoredResponse {
  status: number;
  body: unknown;
  replayed: boolean;
}

/**
 * How a key's replay answers once the booking it made was erased (contract § 18): the booking as it now stands, in the
 * shape the route answers with (the attendee's view for a publishable key). Run in the replay's transaction.
 */
export type ErasedBookingReader = (bookingId: string) => Promise<unknown>;

/** What a request under a key runs: it gets a function that stores the response in the transaction it has open. */
export type IdempotentWork = (complete: (status: number, body: unknown) => Promise<void>) => Promise<{ status: number; body: unknown }>;

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object' && !(value instanceof Date)) {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}

export function fingerprintOf(operation: string, body: unknown): string {
  return createHash('sha256')
    .update(operation)
    .update('\n')
    .update(JSON.stringify(canonical(body) ?? null))
    .digest('hex');
}

/**
 * Idempotency-Key handling for booking writes (api-rules.md § Bookings): same key and body → the stored
 * response again; another body → 422; still running → 409. 400s and 5xx are not stored.
 */
@Injectable()
export class IdempotencyService {
  constructor(
    private readonly tx: TransactionHost,
    private readonly repository: IdempotencyRepository,
    private readonly clock: Clock,
    private readonly audit: AuditTrail,
    jobs: PeriodicJobs,
  ) {
    // Records live 24 hours on the Clock; the sweep only keeps the table small (expired ones are reclaimed anyway).
    jobs.register('idempotency-cleanup', CLEANUP_INTERVAL_MS, () => this.repository.deleteExpired(this.clock.now()));
  }

  /**
   * Erasure (contract § 18): no stored response hands the erased bookings' data (or the attendee's token) back. A key
   * that made one of them keeps its record without the body, so a retry still replays, with the booking as it now
   * stands (the caller's ErasedBookingReader), and never books again; any other response naming them goes.
   */
  eraseNaming(scope: TenantScope, bookingIds: readonly string[]): Promise<number> {
    return this.repository.eraseNaming(scope, bookingIds);
  }

  async run(
    scope: TenantScope,
    key: string | undefined,
    fingerprint: string,
    requestId: string,
    work: IdempotentWork,
    readErased?: ErasedBookingReader,
  ): Promise<StoredResponse> {
    if (key === undefined) {
      const result = await work(async () => undefined);
      return { ...result, replayed: false };
    }
    let ran = false;
    try {
      // One transaction for the key's lock, the check and the work: the stored response commits with the
      // work or not at all, and a request that dies (even with its connection) leaves the key free.
      return await this.tx.transaction(async () => {
        if (!(await this.repository.lock(scope, key))) {
          throw new AppError(ErrorCode.IDEMPOTENCY_KEY_IN_USE, 'A request with this Idempotency-Key is still being processed');
        }
        const existing = await this.repository.find(scope, key, this.clock.now());
        if (existing && existing.fingerprint !== fingerprint) {
          throw new AppError(ErrorCode.IDEMPOTENCY_KEY_REUSED, 'This Idempotency-Key was used with a different request');
        }
        if (existing) {
          this.audit.describe({ details: { idempotentReplay: true } });
          if (isErasedReplay(existing.body)) {
            const { bookingId, rest } = existing.body.erasedReplay;
            // A route without a reader never made a booking; its record cannot be a booking's.
            if (!readErased) throw new Error('An erased booking’s Idempotency-Key replayed by a route that reads no booking');
            return { status: existing.status, body: { booking: await readErased(bookingId), ...rest }, replayed: true };
          }
          return { status: existing.status, body: existing.body, replayed: true };
        }
        ran = true;
        const result = await work((status, body) =>
          this.repository.store(scope, key, { fingerprint, status, body }, this.clock.now(), TTL_MS),
        );
        return { ...result, replayed: false };
      });
    } catch (error) {
      // The work's refusals (409, 404, 422 …) are answers too and are kept; 400s, 429s (a limit that lifts: the same
      // request later must be tried again, not answered from the record) and 5xx are not.
      const rendered = ran ? renderError(error, requestId) : undefined;
      if (rendered && rendered.status !== 400 && rendered.status !== 429 && rendered.status < 500) {
        const refusal = { fingerprint, status: rendered.status, body: rendered.body };
        // The work's transaction rolled back: the refusal is stored in one of its own, which is no change of the
        // request's (no audit entry: the request fails).
        await this.audit
          .unrecorded(() => this.tx.transaction(() => this.repository.store(scope, key, refusal, this.clock.now(), TTL_MS)))
          .catch(() => undefined);
      }
      throw error;
    }
  }
}
