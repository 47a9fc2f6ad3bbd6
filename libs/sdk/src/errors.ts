import type { components } from '../../api-types/src/schema.js';

/** Every `code` the API answers with (contract: `{ code, message, details?, requestId }`). */
export type ErrorCode = components['schemas']['ErrorResponseDto']['code'];
export type ErrorDetail = components['schemas']['ErrorDetailDto'];
/** An answer that was no API error body (a proxy's HTML page, an empty 502): the SDK's own code. */
export type SdkErrorCode = ErrorCode | 'UNEXPECTED_RESPONSE';

/** A refused request: the API's error body, its HTTP status and the request id to quote to support. */
export class ApiError<C extends SdkErrorCode = SdkErrorCode> extends Error {
  override readonly name: string = 'ApiError';
  readonly status: number;
  readonly code: C;
  readonly details: ErrorDetail[] | undefined;
  readonly requestId: string | undefined;
  /** Seconds the API asked to wait (`Retry-After` on 429 and 503), when it said. */
  readonly retryAfter: number | undefined;

  constructor(init: { status: number; code: C; message: string; details?: ErrorDetail[]; requestId?: string; retryAfter?: number }) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    this.details = init.details;
    this.requestId = init.requestId;
    this.retryAfter = init.retryAfter;
  }

  /** Whether `error` is an ApiError, of one of `codes` when given; narrows `code`. */
  static is<K extends SdkErrorCode>(error: unknown, ...codes: K[]): error is ApiError<K> {
    return error instanceof ApiError && (codes.length === 0 || codes.includes(error.code as K));
  }
}

/** 400 VALIDATION_ERROR: `details` names each refused field. */
export class ValidationError extends ApiError {
  override readonly name = 'ValidationError';
}
/** 401: no, a wrong, an expired or a revoked credential. */
export class AuthenticationError extends ApiError {
  override readonly name = 'AuthenticationError';
}
/** 403: the credential may not do this (a role, a scope, an origin). */
export class PermissionError extends ApiError {
  override readonly name = 'PermissionError';
}
/** 404: no such resource in the caller's organization. */
export class NotFoundError extends ApiError {
  override readonly name = 'NotFoundError';
}
/** 409 and 422: the request conflicts with the resource's state (a taken slot, an Idempotency-Key in use or reused). */
export class ConflictError extends ApiError {
  override readonly name = 'ConflictError';
}
/** 429: a rate limit; `retryAfter` says when to try again. */
export class RateLimitError extends ApiError {
  override readonly name = 'RateLimitError';
}
/** 5xx: the service could not answer; safe to retry what is idempotent. */
export class ServerError extends ApiError {
  override readonly name = 'ServerError';
}

type ErrorClass = new (init: ConstructorParameters<typeof ApiError<SdkErrorCode>>[0]) => ApiError;

function classFor(status: number): ErrorClass {
  if (status === 400) return ValidationError;
  if (status === 401) return AuthenticationError;
  if (status === 403) return PermissionError;
  if (status === 404) return NotFoundError;
  if (status === 409 || status === 422) return ConflictError;
  if (status === 429) return RateLimitError;
  if (status >= 500) return ServerError;
  return ApiError;
}

/** Seconds from a `Retry-After` header (delta-seconds or an HTTP date), or undefined. */
export function retryAfterSeconds(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}

/** The typed error for a failed response and its parsed body (openapi-fetch's `error`). */
export function toApiError(response: Response, body: unknown): ApiError {
  const Class = classFor(response.status);
  const retryAfter = retryAfterSeconds(response.headers.get('retry-after'));
  const requestId = response.headers.get('x-request-id') ?? undefined;
  if (typeof body === 'object' && body !== null && typeof (body as { code?: unknown }).code === 'string') {
    const error = body as { code: ErrorCode; message?: string; details?: ErrorDetail[]; requestId?: string };
    return new Class({
      status: response.status,
      code: error.code,
      message: error.message ?? error.code,
      details: error.details,
      requestId: error.requestId ?? requestId,
      retryAfter,
    });
  }
  const text = typeof body === 'string' ? body.slice(0, 200) : '';
  return new Class({
    status: response.status,
    code: 'UNEXPECTED_RESPONSE',
    message: `HTTP ${response.status}${text ? `: ${text}` : ''}`,
    requestId,
    retryAfter,
  });
}

/** What openapi-fetch resolves to: data on success, the parsed error body otherwise. */
export interface FetchResult<D> {
  data?: D;
  error?: unknown;
  response: Response;
}

/** The data of a successful call, or the call's ApiError thrown. `unwrap(await client.GET('/v1/bookings'))`. */
export function unwrap<D>(result: FetchResult<D>): D {
  if (result.response.ok && result.error === undefined) return result.data as D;
  throw toApiError(result.response, result.error);
}
