import { AppConfig, ConfigError, ensureJwtSecret, loadConfig } from '@app/common';
import { runMigrations, startEmbeddedPostgres, type EmbeddedDatabase } from '@app/database';
import { createApp } from './bootstrap.js';
import { createRootLogger } from './logging/logger.js';

function configOrExit(): AppConfig {
  try {
    return loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`Configuration error: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}

async function main(): Promise<void> {
  const config = configOrExit();
  const logger = createRootLogger(config.logLevel);
  let embedded: EmbeddedDatabase | undefined;
  if (!config.databaseUrl) {
    logger.info({ dataDir: config.dataDir }, 'DATABASE_URL not set: starting embedded PostgreSQL');
    embedded = await startEmbeddedPostgres(config.dataDir);
    config.databaseUrl = embedded.url;
  }
  ensureJwtSecret(config);
  const applied = await runMigrations(config.databaseUrl);
  if (applied.length) logger.info({ migrations: applied }, 'Applied migrations');

  const app = await createApp({ config, logger });
  let stopping = false;
  const shutdown = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'Shutting down');
    try {
      await app.close();
      await embedded?.stop();
      process.exit(0);
    } catch (error) {
      logger.error({ err: error }, 'Shutdown failed');
      process.exit(1);
    }
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));

  await app.listen({ port: config.port, host: '0.0.0.0' });
  logger.info({ url: `http://localhost:${config.port}/v1`, docs: `http://localhost:${config.port}/docs` }, 'Listening');
}

main().catch((error: unknown) => {
  process.stderr.write(`Startup failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
