import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { loadConfig, SystemClock } from '@app/common';
import { AppModule } from '../app.module.js';
import { routeApp } from '../bootstrap.js';
import { createOpenApiDocument } from './openapi-document.js';

/**
 * Writes the OpenAPI document without a database: Nest's preview mode reads the modules' routes and
 * metadata but builds no provider. Prints it on stdout; the console's build generates its API types from it
 * (scripts/admin-client.mjs).
 */
async function main(): Promise<void> {
  // Nothing connects in preview mode; the URL only satisfies the configuration, and a build run with
  // NODE_ENV=production (no JWT_SECRET at build time) still writes the same document.
  const config = loadConfig({
    ...process.env,
    NODE_ENV: 'development',
    DATABASE_URL: 'postgres://preview@127.0.0.1:1/preview',
    LOG_LEVEL: 'silent',
  });
  const app = await NestFactory.create<NestFastifyApplication>(
    AppModule.register({ config, clock: new SystemClock() }),
    new FastifyAdapter(),
    {
      preview: true,
      logger: false,
      abortOnError: false,
    },
  );
  routeApp(app);
  process.stdout.write(JSON.stringify(createOpenApiDocument(app, config.appUrl, config.publicUrl)));
  await app.close();
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error instanceof Error ? error.stack : error)}\n`);
  process.exit(1);
});
