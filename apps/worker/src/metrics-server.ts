import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { AppConfig, AppError, ErrorCode, renderError, requestIdFor } from '@app/common';
import { MetricsAccess } from '../../api/src/metrics/metrics-access.js';
import { Metrics, METRICS_CONTENT_TYPE } from '../../api/src/metrics/metrics.js';

/** A request's headers arrive within 10 s, as the API's do (contract § 19); the whole request within REQUEST_TIMEOUT_MS. */
const HEADERS_TIMEOUT_MS = 10_000;

export interface MetricsServer {
  /** The port it listens on (METRICS_PORT, or the one the system picked for 0). */
  readonly port: number;
  /** Stops accepting and ends every connection (a scraper's kept-alive one too); resolves when the server is closed. */
  close(): Promise<void>;
}

/**
 * The worker's own `GET /metrics` on METRICS_PORT (contract § 19): the worker has no HTTP server, and what it counts
 * (webhook_attempts_total above all) is nowhere else. The same registry as an API instance's (Metrics: the queue and
 * pool gauges, Node's process metrics) and the same access rule (MetricsAccess). A plain node:http server: one route,
 * no body read. Anything else is a 404 with the contract's error body. Listening fails the start (an address in use
 * names METRICS_PORT).
 */
export async function serveMetrics(metrics: Metrics, config: AppConfig, logger: Pick<Logger, 'error'>): Promise<MetricsServer> {
  const access = new MetricsAccess(config);

  const answerError = (error: unknown, request: IncomingMessage, response: ServerResponse): void => {
    const rendered = renderError(error, requestIdFor(request));
    if (rendered.unexpected) logger.error({ err: error, requestId: rendered.body.requestId }, 'Serving /metrics failed');
    response.writeHead(rendered.status, {
      ...rendered.headers,
      'Content-Type': 'application/json; charset=utf-8',
      'X-Request-Id': rendered.body.requestId,
    });
    response.end(JSON.stringify(rendered.body));
  };

  const serve = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const path = (request.url ?? '').split('?')[0];
    if (request.method !== 'GET' || path !== '/metrics') throw new AppError(ErrorCode.NOT_FOUND, 'Resource not found');
    const refusal = access.refusal(request.headers.authorization, request.socket.remoteAddress);
    if (refusal) throw refusal;
    const text = await metrics.render();
    response.writeHead(200, { 'Content-Type': METRICS_CONTENT_TYPE, 'Cache-Control': 'no-store' });
    response.end(text);
  };

  const server = createServer((request, response) => {
    serve(request, response).catch((error: unknown) => answerError(error, request, response));
  });
  server.headersTimeout = HEADERS_TIMEOUT_MS;
  server.requestTimeout = config.requestTimeoutMs;

  await new Promise<void>((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException): void =>
      reject(new Error(`METRICS_PORT ${config.metricsPort}: cannot listen (${error.code ?? error.message})`));
    server.once('error', failed);
    server.listen({ port: config.metricsPort, host: '0.0.0.0' }, () => {
      server.off('error', failed);
      resolve();
    });
  });
  server.on('error', (error) => logger.error({ err: error }, 'The /metrics server failed'));

  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
