import fastifyCompress from '@fastify/compress';
import fastifyCookie from '@fastify/cookie';
import fastifyCors from '@fastify/cors';
import { NestFactory } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { SwaggerModule } from '@nestjs/swagger';
import { LogController } from 'fastify';
import type { Logger } from 'pino';
import {
  AllExceptionsFilter,
  answerClientError,
  answerFrameworkError,
  answerMethodNotAllowed,
  AppConfig,
  type BrowserRouteConfig,
  capConnectionsPerClient,
  Clock,
  closeConnectionsOnClose,
  COMPRESS_THRESHOLD_BYTES,
  createValidationPipe,
  drainRequest,
  fastifyTrustProxy,
  normalizeForwardedFor,
  parseJsonBodies,
  requestIdFor,
  requestTimeouts,
  SystemClock,
} from '@app/common';
import { serveAdminConsole } from './admin/admin-console.js';
import { serveBookerLocales, serveBookerScript } from './admin/booker-script.js';
import { AppModule, type AppModuleOptions } from './app.module.js';
import { createRootLogger, PinoNestLogger } from './logging/logger.js';
import { createOpenApiDocument } from './openapi/openapi-document.js';
import { type GatedRequest, PublishableKeyGate } from './modules/auth/index.js';
import { serveOAuthEndpoints } from './modules/oauth/index.js';
import { Readiness } from './modules/health/readiness.js';
import { ServerFirstFastifyAdapter } from './server-first-adapter.js';

export const BODY_LIMIT_BYTES = 1024 * 1024;

export interface CreateAppOptions {
  config: AppConfig;
  clock?: Clock;
  logger?: Logger;
  extraModules?: AppModuleOptions['extraModules'];
}

/** The document is built on its first request, not at boot: scanning every route costs about 0.4 s of CPU. */
function setupSwagger(app: NestFastifyApplication, config: AppConfig): void {
  SwaggerModule.setup('docs', app, () => createOpenApiDocument(app, config.appUrl, config.publicUrl), {
    jsonDocumentUrl: 'docs-json',
    useGlobalPrefix: false,
    // "Authorize" with a partner app: the authorization code flow, PKCE as the server requires (contract § 20).
    swaggerOptions: { initOAuth: { usePkceWithAuthorizationCodeGrant: true, scopeSeparator: ' ' } },
  });
}

/** The routes' prefix, shared with the OpenAPI document written at build time (openapi/write-document.ts). */
export function routeApp(app: NestFastifyApplication): void {
  // SCIM (contract § 21) lives under /scim/v2, outside /v1, where directories expect it.
  const scim = ['ServiceProviderConfig', 'ResourceTypes', 'Schemas', 'Users', 'Users/:id'].map((path) => `scim/v2/${path}`);
  app.setGlobalPrefix('v1', { exclude: ['health', 'health/ready', ...scim] });
}

/**
 * CORS (api-rules.md § Browser booking) through @fastify/cors: no route answers other origins (global `origin: false`)
 * except those whose Access rule gives them a BrowserRouteConfig (the (P) routes and the attendee-token
 * routes), each of which also gets an OPTIONS route for the preflight. On (P) routes the publishable key and
 * its allowed origins are checked first, in a hook ahead of the plugin's, so a refused origin gets no
 * Access-Control-Allow-Origin at all, its errors included.
 */
async function serveBrowserRoutes(app: NestFastifyApplication): Promise<void> {
  const fastify = app.getHttpAdapter().getInstance();
  const gate = app.get(PublishableKeyGate);
  const preflights = new Set<string>();
  fastify.addHook('onRoute', (route) => {
    const config = route.config as Partial<BrowserRouteConfig> | undefined;
    if (!config?.cors || ([] as string[]).concat(route.method).includes('OPTIONS') || preflights.has(route.url)) return;
    preflights.add(route.url);
    // The plugin answers a preflight in its hook (204); the handler only runs for a bare OPTIONS without Origin.
    fastify.options(route.url, { config: { cors: config.cors } }, (_request, reply) => reply.code(204).send());
  });
  fastify.addHook('preHandler', async (request) => {
    const config = request.routeOptions.config as Partial<BrowserRouteConfig>;
    if (config.publishableKey && request.method !== 'OPTIONS') await gate.admit(request as unknown as GatedRequest, config.withKey);
  });
  await app.register(fastifyCors, { origin: false, hook: 'preHandler' });
}

/** Builds the whole HTTP application; `main.ts` and the e2e tests both start it through here. */
export async function createApp(options: CreateAppOptions): Promise<NestFastifyApplication> {
  const { config } = options;
  const logger = options.logger ?? createRootLogger(config.logLevel);
  const adapter = new ServerFirstFastifyAdapter({
    loggerInstance: logger,
    logController: new LogController({ requestIdLogLabel: 'requestId' }),
    bodyLimit: BODY_LIMIT_BYTES,
    requestIdHeader: false,
    genReqId: requestIdFor,
    trustProxy: fastifyTrustProxy(config.trustProxy),
    // Behind proxies, X-Forwarded-For is read as addresses only, before Fastify derives `request.ip` from it.
    rewriteUrl: config.trustProxy === undefined ? undefined : normalizeForwardedFor,
    // Slow clients (api-rules.md § Running in production): 408 REQUEST_TIMEOUT through answerClientError.
    ...requestTimeouts(config.requestTimeoutMs),
    clientErrorHandler: answerClientError,
    frameworkErrors: answerFrameworkError,
  });
  const app = await NestFactory.create<NestFastifyApplication>(
    AppModule.register({ config, clock: options.clock ?? new SystemClock(), extraModules: options.extraModules }),
    adapter,
    // Nest's own body parsers would accept urlencoded bodies; the API takes JSON only (api-rules.md § Basics).
    { logger: new PinoNestLogger(logger), abortOnError: false, bodyParser: false },
  );
  const fastify = app.getHttpAdapter().getInstance();
  capConnectionsPerClient(fastify.server, config.maxConnectionsPerClient);
  closeConnectionsOnClose(fastify, (connections) =>
    logger.warn({ connections }, 'Shutting down: connections still answering after the grace period were cut'),
  );
  fastify.removeContentTypeParser(['text/plain']);
  parseJsonBodies(fastify);
  fastify.addHook('onRequest', async (request, reply) => {
    void reply.header('X-Request-Id', String(request.id));
  });
  // A body refused as too large is read to its end (bounded) before the 413 goes, so the client gets to read it.
  fastify.addHook('onSend', async (request, reply, payload) => {
    if (reply.statusCode === 413) await drainRequest(request.raw, reply);
    return payload;
  });
  answerMethodNotAllowed(fastify);
  await serveBrowserRoutes(app);
  // Answers of 1 KB and more, by Accept-Encoding (br before gzip); request bodies stay plain JSON (no decompression).
  // It hooks each route as it is registered, so it comes before them. Cached availability answers arrive compressed.
  await app.register(fastifyCompress, { encodings: ['br', 'gzip'], threshold: COMPRESS_THRESHOLD_BYTES, globalDecompression: false });
  await app.register(fastifyCookie);
  await serveAdminConsole(fastify, config.adminDir);
  serveBookerScript(fastify, config.bookerDir);
  // The authorization server's endpoints outside /v1 (contract § 20).
  await serveOAuthEndpoints(app);
  serveBookerLocales(fastify);

  routeApp(app);
  app.useGlobalPipes(createValidationPipe());
  app.useGlobalFilters(new AllExceptionsFilter());
  setupSwagger(app, config);
  await app.init();
  // Closing: /health/ready answers 503 first, the server closes SHUTDOWN_DRAIN_MS later, the modules after it.
  const readiness = app.get(Readiness);
  adapter.beforeServerClose = () => readiness.drain(config.shutdownDrainMs);
  return app;
}
