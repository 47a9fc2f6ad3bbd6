import { createHash, timingSafeEqual } from 'node:crypto';
import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import ipaddr from 'ipaddr.js';
import { answeredRefusalReason, AppConfig, AppError, ErrorCode, type RequestWithPrincipal, sendError } from '@app/common';
import { Metrics, METRICS_CONTENT_TYPE, UNMATCHED_ROUTE } from './metrics.js';

/** The routes that make bookings, by template: what bookings_created_total and bookings_refused_total count. */
const BOOKING_ROUTES = new Set(['/v1/bookings', '/v1/public/bookings']);

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/** A request's client address is a loopback one (127.0.0.0/8, ::1, or 127.x written as IPv4-mapped IPv6). */
export function isLoopback(ip: string | undefined): boolean {
  if (ip === undefined || !ipaddr.isValid(ip)) return false;
  return ipaddr.process(ip).range() === 'loopback';
}

/** A series of `recurrenceCount` bookings counts as that many; a validated 201's body has it as an integer. */
function bookingsIn(body: unknown): number {
  const count = typeof body === 'object' && body !== null ? (body as { recurrenceCount?: unknown }).recurrenceCount : undefined;
  return typeof count === 'number' && Number.isInteger(count) && count > 0 ? count : 1;
}

/**
 * `GET /metrics` (outside /v1, a plain Fastify route like /admin: no guard, no rate limit, not in the OpenAPI document)
 * and the one onResponse hook that counts every request. Only in a process with an HTTP server: the worker's
 * application context has none, so its Metrics count but are not served.
 */
@Injectable()
export class MetricsEndpoint implements OnModuleInit {
  private readonly logger = new Logger('Metrics');
  private readonly tokenDigest: Buffer | undefined;
  /** Without a token: outside production, or with METRICS_ALLOW_LOOPBACK=true, loopback peers may scrape. */
  private readonly loopbackAllowed: boolean;

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly metrics: Metrics,
    config: AppConfig,
  ) {
    this.tokenDigest = config.metricsToken === undefined ? undefined : digest(config.metricsToken);
    this.loopbackAllowed = !config.isProduction || config.metricsAllowLoopback;
  }

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter?.getInstance<FastifyInstance>();
    if (!fastify) return;
    // A callback hook, not an async one: no promise per request. The template is Fastify's (`/v1/bookings/:id`).
    fastify.addHook('onResponse', (request, reply, done) => {
      const route = request.routeOptions.url ?? UNMATCHED_ROUTE;
      this.metrics.countRequest(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
      if (request.method === 'POST' && BOOKING_ROUTES.has(route)) this.countBooking(request, reply);
      done();
    });
    fastify.get('/metrics', async (request, reply) => {
      const refusal = this.refusal(request);
      if (refusal) return sendError(refusal, request, reply, this.logger);
      const text = await this.metrics.render();
      return reply.header('Cache-Control', 'no-store').type(METRICS_CONTENT_TYPE).send(text);
    });
  }

  /**
   * Who may scrape (contract § 19): with METRICS_TOKEN, whoever sends it as a Bearer token (compared in constant time);
   * without, loopback clients only, judged by the TCP peer alone (a forwarded address is the client's to write, whatever
   * TRUST_PROXY believes), and in production not at all (404, as for no route) unless METRICS_ALLOW_LOOPBACK=true: a
   * proxy on the same host makes every visitor a loopback peer.
   */
  private refusal(request: FastifyRequest): AppError | undefined {
    if (this.tokenDigest) {
      const match = /^Bearer +(\S+) *$/i.exec(request.headers.authorization ?? '');
      if (match && timingSafeEqual(digest(match[1]), this.tokenDigest)) return undefined;
      return new AppError(ErrorCode.UNAUTHORIZED, 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>', undefined, {
        'WWW-Authenticate': 'Bearer realm="metrics"',
      });
    }
    if (!this.loopbackAllowed) return new AppError(ErrorCode.NOT_FOUND, 'Resource not found');
    if (isLoopback(request.socket.remoteAddress)) return undefined;
    return new AppError(ErrorCode.FORBIDDEN, 'Without METRICS_TOKEN, GET /metrics answers loopback clients only');
  }

  /** A replayed answer was counted when it was first made; a refusal is counted by the code it was answered with. */
  private countBooking(request: FastifyRequest, reply: FastifyReply): void {
    if (reply.getHeader('idempotent-replayed') !== undefined) return;
    const status = reply.statusCode;
    if (status === 201) {
      this.metrics.bookingsMade((request as RequestWithPrincipal).principal?.livemode ?? true, bookingsIn(request.body));
    } else if (status >= 400 && status < 500) {
      this.metrics.bookingRefused(answeredRefusalReason(request) ?? `http_${status}`);
    }
  }
}
