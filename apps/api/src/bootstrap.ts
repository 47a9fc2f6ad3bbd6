import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
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
import { AppModule, type AppModuleOptions } from './app.module.js';
import { createRootLogger, PinoNestLogger } from './logging/logger.js';

export const BODY_LIMIT_BYTES = 1024 * 1024;

export interface CreateAppOptions {
  config: AppConfig;
  clock?: Clock;
  logger?: Logger;
  extraModules?: AppModuleOptions['extraModules'];
}

function setupSwagger(app: NestFastifyApplication): void {
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Scheduling API')
      .setDescription(
        'Event types, availability, bookings, team and webhooks. Authenticate with `Authorization: ApiKey <key>` ' +
          '(server to server, scoped) or `Authorization: Bearer <jwt>` (user sessions). Errors are ' +
          '`{ code, message, details?, requestId }`.',
      )
      .setVersion('1')
      .addApiKey({ type: 'apiKey', in: 'header', name: 'Authorization', description: 'ApiKey mk_live_… or ApiKey mk_test_…' }, 'ApiKey')
      .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }, 'bearer')
      .build(),
  );
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'docs-json', useGlobalPrefix: false });
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

  app.setGlobalPrefix('v1', { exclude: ['health', 'health/ready'] });
  app.useGlobalPipes(createValidationPipe());
  app.useGlobalFilters(new AllExceptionsFilter());
  setupSwagger(app);
  await app.init();
  return app;
}
