import type { LoggerService } from '@nestjs/common';
import { pino, type Logger } from 'pino';
import { loggedPath, type PathOfRequest } from './logged-path.js';

/** Anything that may carry a credential is censored before a log line is written. */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["idempotency-key"]',
  'headers.authorization',
  '*.password',
  '*.token',
  '*.accessToken',
  '*.refreshToken',
  '*.confirmationToken',
  '*.apiKey',
  '*.secret',
  '*.key',
];

interface LoggedRequest extends PathOfRequest {
  method?: string;
  host?: string;
  ip?: string;
}

/**
 * Fastify's request serializer, but the URL without its query string (links such as `/invitations/accept?token=…`)
 * and without any value of its path but our ids (a calendar feed's token): loggedPath.
 */
function requestSerializer(request: LoggedRequest): Record<string, unknown> {
  return { method: request.method, url: loggedPath(request), host: request.host, remoteAddress: request.ip };
}

export function createRootLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  return pino(
    {
      level,
      serializers: { req: requestSerializer },
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      messageKey: 'msg',
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      formatters: { level: (label) => ({ level: label }) },
    },
    destination as pino.DestinationStream | undefined,
  );
}

/** Nest's own log calls go to the same pino logger as Fastify's request logs. */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  log(message: unknown, context?: string): void {
    this.write('info', message, context);
  }

  error(message: unknown, traceOrContext?: string, context?: string): void {
    this.write('error', message, context ?? traceOrContext);
  }

  warn(message: unknown, context?: string): void {
    this.write('warn', message, context);
  }

  debug(message: unknown, context?: string): void {
    this.write('debug', message, context);
  }

  verbose(message: unknown, context?: string): void {
    this.write('trace', message, context);
  }

  fatal(message: unknown, context?: string): void {
    this.write('fatal', message, context);
  }

  private write(level: 'info' | 'error' | 'warn' | 'debug' | 'trace' | 'fatal', message: unknown, context?: string): void {
    if (typeof message === 'object' && message !== null) this.logger[level]({ context, ...message });
    else this.logger[level]({ context }, String(message));
  }
}
