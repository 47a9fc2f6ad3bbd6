import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { AppConfig, ConfigError, ensureEncryptionKey, ensureJwtSecret, isDatabaseUnavailable, loadConfig } from '@app/common';
import { runMigrations, startEmbeddedPostgres, type EmbeddedDatabase } from '@app/database';
import { checkEncryptionKey } from './encryption-key-check.js';
import { createRootLogger } from './logging/logger.js';

/** What every process of the service (API, worker) sets up before Nest starts. */
export interface Runtime {
  config: AppConfig;
  logger: Logger;
  embedded: EmbeddedDatabase | undefined;
}

export interface RuntimeOptions {
  /**
   * Start the embedded PostgreSQL when DATABASE_URL is unset, and generate a missing JWT secret. Only the
   * API may: a separate worker must share the API's database and secret, and a second server cannot
   * open the same data directory.
   */
  embeddedDatabase: boolean;
  /** Names the process in configuration errors. */
  processName: string;
}

function exitWithConfigError(error: ConfigError): never {
  process.stderr.write(`Configuration error: ${error.message}\n`);
  process.exit(1);
}

function configOrExit(options: RuntimeOptions): AppConfig {
  try {
    const config = loadConfig(process.env);
    if (!options.embeddedDatabase) {
      if (!config.databaseUrl)
        throw new ConfigError('DATABASE_URL', `is required for the ${options.processName} (it shares the API's database)`);
      // Sessions are signed with it, and webhook secrets of earlier versions were sealed with a key derived from it.
      if (!config.jwtSecret && !existsSync(join(config.dataDir, 'jwt-secret'))) {
        throw new ConfigError('JWT_SECRET', `is required for the ${options.processName} (the API's value, or the API's DATA_DIR)`);
      }
      // Webhook and calendar secrets are sealed with it: a key of its own would open none of them.
      if (!config.encryptionKey && !existsSync(join(config.dataDir, 'encryption-key'))) {
        throw new ConfigError('ENCRYPTION_KEY', `is required for the ${options.processName} (the API's value, or the API's DATA_DIR)`);
      }
    }
    return config;
  } catch (error) {
    if (error instanceof ConfigError) exitWithConfigError(error);
    throw error;
  }
}

/** Validated configuration, a database (embedded if allowed and none is configured), the JWT secret, migrations applied. */
export async function prepareRuntime(options: RuntimeOptions): Promise<Runtime> {
  const config = configOrExit(options);
  const logger = createRootLogger(config.logLevel);
  let embedded: EmbeddedDatabase | undefined;
  if (!config.databaseUrl) {
    logger.info({ dataDir: config.dataDir }, 'DATABASE_URL not set: starting embedded PostgreSQL');
    embedded = await startEmbeddedPostgres(config.dataDir);
    config.databaseUrl = embedded.url;
  }
  ensureJwtSecret(config);
  ensureEncryptionKey(config);
  const databaseUrl = config.databaseUrl;
  const applied = await whileDatabaseStarts(logger, 'migrations', () => runMigrations(databaseUrl));
  if (applied.length) logger.info({ migrations: applied }, 'Applied migrations');
  try {
    const outcome = await whileDatabaseStarts(logger, 'ENCRYPTION_KEY check', () => checkEncryptionKey(config));
    if (outcome === 'recorded') logger.info({ outcome }, 'ENCRYPTION_KEY check value recorded');
    if (outcome === 'rotating')
      logger.info(
        { outcome },
        'ENCRYPTION_KEY rotation: the check value moves to the new key once the workers have re-sealed every secret',
      );
  } catch (error) {
    if (error instanceof ConfigError) {
      await embedded?.stop();
      exitWithConfigError(error);
    }
    throw error;
  }
  return { config, logger, embedded };
}

/** How long a process starting waits for a database that is failing over or restarting, then gives up (exit 1). */
export const STARTUP_DATABASE_WAIT_MS = 30_000;

/**
 * `work` (a step of start-up) again while the database is unavailable (a failover or a restart: a connection refused or
 * cut, a standby answering), with doubling pauses up to 2 s, for at most `waitMs`; any other error at once. Seen in the
 * failover drill: a worker process starting as Patroni moved the primary exited with "Connection terminated".
 */
export async function whileDatabaseStarts<T>(
  logger: Pick<Logger, 'warn'>,
  step: string,
  work: () => Promise<T>,
  waitMs = STARTUP_DATABASE_WAIT_MS,
): Promise<T> {
  const deadline = Date.now() + waitMs;
  for (let pauseMs = 250; ; pauseMs = Math.min(pauseMs * 2, 2000)) {
    try {
      return await work();
    } catch (error) {
      if (!isDatabaseUnavailable(error) || Date.now() + pauseMs > deadline) throw error;
      logger.warn(
        { step, error: error instanceof Error ? error.message : String(error), retryInMs: pauseMs },
        'Database unavailable at start-up; trying again',
      );
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  }
}

/** SIGTERM or SIGINT: `close` (the Nest app: in-flight work finishes), then the embedded database; exit 0, or 1 if that fails. */
export function exitOnSignals(runtime: Runtime, close: () => Promise<void>): void {
  let stopping = false;
  const shutdown = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    runtime.logger.info({ signal }, 'Shutting down');
    try {
      await close();
      await runtime.embedded?.stop();
      process.exit(0);
    } catch (error) {
      runtime.logger.error({ err: error }, 'Shutdown failed');
      process.exit(1);
    }
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
}

export function exitOnStartupFailure(error: unknown): never {
  process.stderr.write(`Startup failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
