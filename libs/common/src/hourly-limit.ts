import { AppError } from './errors/app-error.js';
import { ErrorCode } from './errors/error-code.js';

/** The window of the visitors' limits: any hour, sliding. */
export const LIMIT_WINDOW_MS = 60 * 60 * 1000;

/**
 * The visitors' hourly limits (public bookings per key and address, routing responses per address): `made` holds when the
 * visitor's counted actions of the last hour were made, newest first, at most `limit` of them, read under the visitor's
 * lock in the transaction that will count the new one. Below the limit it returns; at it, 429 RATE_LIMITED with
 * Retry-After: the seconds (at least 1) until the oldest of the `limit` newest leaves the hour.
 */
export function admitWithinHour(made: readonly Date[], limit: number, now: number, message: string): void {
  if (made.length < limit) return;
  const frees = made[limit - 1].getTime() + LIMIT_WINDOW_MS;
  throw new AppError(ErrorCode.RATE_LIMITED, message, undefined, {
    'Retry-After': String(Math.max(1, Math.ceil((frees - now) / 1000))),
  });
}
