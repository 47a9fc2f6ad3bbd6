import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { answeredRefusalReason, AppConfig, type RequestWithPrincipal, sendError } from '@app/common';
import { MetricsAccess } from './metrics-access.js';
import { Metrics, METRICS_CONTENT_TYPE, UNMATCHED_ROUTE } from './metrics.js';

/** The routes that make bookings, by template: what bookings_created_total and bookings_refused_total count. */
const BOOKING_ROUTES = new Set(['/v1/bookings', '/v1/public/bookings']);

/** A series of `recurrenceCount` bookings counts as that many; a validated 201's body has it as an integer. */
function bookingsIn(body: unknown): number {
  const count = typeof body === 'object' && body !== null ? (body as { recurrenceCount?: unknown }).recurrenceCount : undefined;
  return typeof count === 'number' && Number.isInteger(count) && count > 0 ? count : 1;
}

/**
 * `GET /metrics` (outside /v1, a plain Fastify route like /admin: no guard, no rate limit, not in the OpenAPI document)
 * and the one onResponse hook that counts every request. Only in a process with an HTTP server: the worker's
 * application context has none, and serves its Metrics on METRICS_PORT instead (apps/worker/src/metrics-server.ts).
 */
@Injectable()
export class MetricsEndpoint implements OnModuleInit {
  private readonly logger = new Logger('Metrics');
  private readonly access: MetricsAccess;

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly metrics: Metrics,
    config: AppConfig,
  ) {
    this.access = new MetricsAccess(config);
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
      const refusal = this.access.refusal(request.headers.authorization, request.socket.remoteAddress);
      if (refusal) return sendError(refusal, request, reply, this.logger);
      const text = await this.metrics.render();
      return reply.header('Cache-Control', 'no-store').type(METRICS_CONTENT_TYPE).send(text);
    });
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
