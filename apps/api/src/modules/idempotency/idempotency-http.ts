import type { FastifyReply } from 'fastify';
import { AppError } from '@app/common';
import type { StoredResponse } from './idempotency.service.js';

/** 1–255 visible ASCII characters: the rule, and the document's schema for the header. */
const IDEMPOTENCY_KEY = /^[\x21-\x7E]{1,255}$/;

/** The `Idempotency-Key` header of the routes that take one, for @ApiHeader. */
export const IDEMPOTENCY_HEADER = {
  name: 'Idempotency-Key',
  required: false,
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: IDEMPOTENCY_KEY.source },
  description:
    '1–255 visible ASCII characters. Same key and body within 24 hours → the stored response again with `Idempotent-Replayed: true`; ' +
    'another body → 422 IDEMPOTENCY_KEY_REUSED; while the first is running → 409 IDEMPOTENCY_KEY_IN_USE.',
};

/** The header's value, or 400 naming `Idempotency-Key`. */
export function idempotencyKey(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!IDEMPOTENCY_KEY.test(value)) {
    throw AppError.validation('Idempotency-Key', 'Idempotency-Key must be 1-255 visible ASCII characters');
  }
  return value;
}

/** Sends a stored (or first) answer with its status, marking a replay. */
export function sendStored(reply: FastifyReply, result: StoredResponse): unknown {
  void reply.status(result.status);
  if (result.replayed) void reply.header('Idempotent-Replayed', 'true');
  return result.body;
}
