import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors/app-error.js';
import { ErrorCode } from '../errors/error-code.js';
import { renderError } from './error-body.js';

/** The single place where errors become HTTP responses (api-rules.md § Errors). */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  catch(error: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    sendError(error, request, reply, this.logger);
  }
}

/** The error body each request was answered with, for the metrics' onResponse hook (bookings_refused_total{reason}). */
const answeredErrors = new WeakMap<FastifyRequest, { code: ErrorCode; details?: ReadonlyArray<{ message: string }> }>();

/** The code of the error body `request` was answered with, if it was answered with one. */
export function answeredErrorCode(request: FastifyRequest): ErrorCode | undefined {
  return answeredErrors.get(request)?.code;
}

/**
 * Why a request was refused, as bookings_refused_total's `reason` (contract § 19): for 409 SLOT_UNAVAILABLE the
 * section 7 reason its first detail names (`already_booked`, `host_limit_reached`, `not_routed`); for any other error body its code
 * in lower case (`validation_error`); undefined when it was not answered with an error body.
 */
export function answeredRefusalReason(request: FastifyRequest): string | undefined {
  const answered = answeredErrors.get(request);
  if (!answered) return undefined;
  const reason = answered.details?.[0]?.message;
  if (answered.code === ErrorCode.SLOT_UNAVAILABLE && reason !== undefined && /^[a-z_]{1,64}$/.test(reason)) return reason;
  return answered.code.toLowerCase();
}

export function sendError(error: unknown, request: FastifyRequest, reply: FastifyReply, logger: Pick<Logger, 'error' | 'warn'>): void {
  const rendered = renderError(error, String(request.id));
  answeredErrors.set(request, rendered.body);
  if (rendered.unexpected) {
    const err = error instanceof Error ? error : new Error(String(error));
    logger.error({ err: { type: err.name, message: err.message, stack: err.stack }, requestId: request.id }, 'Unhandled error');
  } else if (rendered.status === 503) {
    logger.warn({ requestId: request.id, code: rendered.body.code }, 'Database unavailable; answered 503');
  }
  if (reply.sent) return;
  void reply.status(rendered.status).headers(rendered.headers).type('application/json; charset=utf-8').send(rendered.body);
}

const frameworkLogger = new Logger('Errors');

/**
 * Fastify's `frameworkErrors`: what its router refuses before any hook runs, a path parameter over its length limit
 * (414 FST_ERR_MAX_PARAM_LENGTH) or a path that is not percent-encoded text (FST_ERR_BAD_URL), gets the API's error
 * body and X-Request-Id (api-rules.md § Basics), never Fastify's own body, which echoes the path.
 */
export function answerFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  void reply.header('X-Request-Id', String(request.id));
  sendError(asContractError(error), request, reply, frameworkLogger);
}

function asContractError(error: FastifyError): unknown {
  switch (error.code) {
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new AppError(ErrorCode.VALIDATION_ERROR, 'A path segment is longer than the API accepts', [
        { field: 'path', message: 'a path segment must be at most 100 characters' },
      ]);
    case 'FST_ERR_BAD_URL':
      return new AppError(ErrorCode.VALIDATION_ERROR, 'The path is not valid percent-encoded text', [
        { field: 'path', message: 'path has a malformed percent-encoding' },
      ]);
    default:
      return error;
  }
}
