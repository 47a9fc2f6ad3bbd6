import { HttpException } from '@nestjs/common';
import { AppError, ErrorDetail } from '../errors/app-error.js';
import { ERROR_STATUS, ErrorCode } from '../errors/error-code.js';
import { isConcurrencyFailure, isDatabaseUnavailable, isExclusionViolation, postgresError } from '../errors/postgres.js';

export interface ErrorBody {
  code: ErrorCode;
  message: string;
  details?: ErrorDetail[];
  requestId: string;
}

export interface RenderedError {
  status: number;
  body: ErrorBody;
  headers: Record<string, string>;
  /** True when the error was not one we meant to send: it is logged with its stack. */
  unexpected: boolean;
}

const STATUS_CODES: Partial<Record<number, ErrorCode>> = {
  400: ErrorCode.VALIDATION_ERROR,
  401: ErrorCode.UNAUTHORIZED,
  403: ErrorCode.FORBIDDEN,
  404: ErrorCode.NOT_FOUND,
  405: ErrorCode.METHOD_NOT_ALLOWED,
  408: ErrorCode.REQUEST_TIMEOUT,
  413: ErrorCode.PAYLOAD_TOO_LARGE,
  415: ErrorCode.UNSUPPORTED_MEDIA_TYPE,
  429: ErrorCode.RATE_LIMITED,
};

/** Safe, fixed messages for errors raised by Fastify or Nest: their own texts can name internals. */
const GENERIC_MESSAGES: Partial<Record<ErrorCode, string>> = {
  VALIDATION_ERROR: 'The request is not valid',
  NOT_FOUND: 'Resource not found',
  METHOD_NOT_ALLOWED: 'Method not allowed',
  REQUEST_TIMEOUT: 'The request took too long to arrive',
  PAYLOAD_TOO_LARGE: 'Request body is larger than 1 MiB',
  UNSUPPORTED_MEDIA_TYPE: 'Request body must be application/json',
  UNAUTHORIZED: 'Missing or invalid credentials',
  FORBIDDEN: 'Not allowed',
  RATE_LIMITED: 'Too many requests',
  INTERNAL_ERROR: 'An unexpected error occurred',
};

function statusOf(error: unknown): number | undefined {
  if (error instanceof HttpException) return error.getStatus();
  if (typeof error === 'object' && error !== null && 'statusCode' in error) {
    const status = (error as { statusCode: unknown }).statusCode;
    if (typeof status === 'number' && status >= 400 && status < 600) return status;
  }
  return undefined;
}

const WWW_AUTHENTICATE = 'Bearer realm="scheduling", ApiKey realm="scheduling"';

/** Maps anything thrown anywhere to api-rules.md § Errors's body; every 401 carries WWW-Authenticate. */
export function renderError(error: unknown, requestId: string): RenderedError {
  const rendered = render(error, requestId);
  if (rendered.status === 401 && !rendered.headers['WWW-Authenticate']) {
    rendered.headers = { ...rendered.headers, 'WWW-Authenticate': WWW_AUTHENTICATE };
  }
  return rendered;
}

/** Never copies a foreign error's message: it can name tables, files or libraries. */
function render(error: unknown, requestId: string): RenderedError {
  if (error instanceof AppError) {
    const body: ErrorBody = { code: error.code, message: error.message, requestId };
    if (error.details?.length) body.details = error.details;
    return { status: error.status, body, headers: error.headers ?? {}, unexpected: false };
  }
  // An exclusion-constraint violation that escaped a service is still a taken slot, not a crash.
  if (isExclusionViolation(error)) {
    const code = ErrorCode.SLOT_UNAVAILABLE;
    return {
      status: ERROR_STATUS[code],
      body: { code, message: 'The time is no longer available', requestId },
      headers: {},
      unexpected: false,
    };
  }
  // The database is down, restarting or too slow: a retryable 503, not a crash (and no internal message).
  if (isDatabaseUnavailable(error)) {
    const code = ErrorCode.SERVICE_UNAVAILABLE;
    return {
      status: ERROR_STATUS[code],
      body: { code, message: 'The service is temporarily unavailable; retry shortly', requestId },
      headers: { 'Retry-After': '1' },
      unexpected: false,
    };
  }
  // A transaction that lost to a concurrent one (a deadlock, 40P01, a serialization failure, 40001, or a row routed to
  // a DEFAULT partition while its month was attached: isConcurrencyFailure): nothing it did stays, and the same request
  // sent again normally succeeds: a retryable 503, not a crash (contract § 19).
  if (isConcurrencyFailure(error)) {
    const code = ErrorCode.SERVICE_UNAVAILABLE;
    return {
      status: ERROR_STATUS[code],
      body: { code, message: 'The request met a concurrent change and was not applied; retry it', requestId },
      headers: { 'Retry-After': '1' },
      unexpected: false,
    };
  }
  // Text PostgreSQL cannot store (a NUL character, bad encoding) that reached a query unchecked is bad input.
  const pgCode = postgresError(error)?.code;
  if (pgCode === '22021' || pgCode === '22P05') {
    const code = ErrorCode.VALIDATION_ERROR;
    return {
      status: ERROR_STATUS[code],
      body: { code, message: 'The request contains characters that cannot be stored', requestId },
      headers: {},
      unexpected: false,
    };
  }
  const status = statusOf(error);
  const code = status !== undefined && status < 500 ? (STATUS_CODES[status] ?? ErrorCode.VALIDATION_ERROR) : ErrorCode.INTERNAL_ERROR;
  const message = GENERIC_MESSAGES[code] ?? 'The request could not be processed';
  return {
    status: code === ErrorCode.INTERNAL_ERROR ? 500 : ERROR_STATUS[code],
    body: { code, message, requestId },
    headers: {},
    unexpected: code === ErrorCode.INTERNAL_ERROR,
  };
}
