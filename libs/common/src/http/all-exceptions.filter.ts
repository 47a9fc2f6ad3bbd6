import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
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

export function sendError(error: unknown, request: FastifyRequest, reply: FastifyReply, logger: Pick<Logger, 'error' | 'warn'>): void {
  const rendered = renderError(error, String(request.id));
  if (rendered.unexpected) {
    const err = error instanceof Error ? error : new Error(String(error));
    logger.error({ err: { type: err.name, message: err.message, stack: err.stack }, requestId: request.id }, 'Unhandled error');
  } else if (rendered.status === 503) {
    logger.warn({ requestId: request.id, code: rendered.body.code }, 'Database unavailable; answered 503');
  }
  if (reply.sent) return;
  void reply.status(rendered.status).headers(rendered.headers).type('application/json; charset=utf-8').send(rendered.body);
}
