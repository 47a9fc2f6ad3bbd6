import fastifyCookie from '@fastify/cookie';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { SwaggerModule } from '@nestjs/swagger';
import { LogController } from 'fastify';
import type { Logger } from 'pino';
import {
  AllExceptionsFilter,
  answerClientError,
  answerMethodNotAllowed,
  AppConfig,
  Clock,
  createValidationPipe,
  requestIdFor,
  SystemClock,
} from '@app/common';
import { serveAdminConsole } from './admin/admin-console.js';
import { AppModule, type AppModuleOptions } from './app.module.js';
import { createRootLogger, PinoNestLogger } from './logging/logger.js';
import { createOpenApiDocument } from './openapi/openapi-document.js';

export const BODY_LIMIT_BYTES = 1024 * 1024;

export interface CreateAppOptions {
  config: AppConfig;
  clock?: Clock;
  logger?: Logger;
  extraModules?: AppModuleOptions['extraModules'];
}

function setupSwagger(app: NestFastifyApplication, config: AppConfig): void {
  SwaggerModule.setup('docs', app, createOpenApiDocument(app, config.appUrl), { jsonDocumentUrl: 'docs-json', useGlobalPrefix: false });
}

/** The routes' prefix, shared with the OpenAPI document written at build time (openapi/write-document.ts). */
export function routeApp(app: NestFastifyApplication): void {
  app.setGlobalPrefix('v1', { exclude: ['health', 'health/ready'] });
}

/** Builds the whole HTTP application; `main.ts` and the e2e tests both start it through here. */
export async function createApp(options: CreateAppOptions): Promise<NestFastifyApplication> {
  const { config } = options;
  const logger = options.logger ?? createRootLogger(config.logLevel);
  const adapter = new FastifyAdapter({
    loggerInstance: logger,
    logController: new LogController({ requestIdLogLabel: 'requestId' }),
    bodyLimit: BODY_LIMIT_BYTES,
    requestIdHeader: false,
    genReqId: requestIdFor,
    trustProxy: false,
    clientErrorHandler: answerClientError,
  });
  const app = await NestFactory.create<NestFastifyApplication>(
    AppModule.register({ config, clock: options.clock ?? new SystemClock(), extraModules: options.extraModules }),
    adapter,
    // Nest's own body parsers would accept urlencoded bodies; the contract takes JSON only.
    { logger: new PinoNestLogger(logger), abortOnError: false, bodyParser: false },
  );
  const fastify = app.getHttpAdapter().getInstance();
  fastify.removeContentTypeParser(['text/plain']);
  fastify.addHook('onRequest', async (request, reply) => {
    void reply.header('X-Request-Id', String(request.id));
  });
  answerMethodNotAllowed(fastify);
  await app.register(fastifyCookie);
  await serveAdminConsole(fastify, config.adminDir);

  routeApp(app);
  app.useGlobalPipes(createValidationPipe());
  app.useGlobalFilters(new AllExceptionsFilter());
  setupSwagger(app, config);
  await app.init();
  return app;
}
