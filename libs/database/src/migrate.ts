import { DataSource, type MigrationInterface } from 'typeorm';
import { dataSourceOptions } from './data-source-options.js';
import { MIGRATIONS } from './migrations/index.js';

/** Arbitrary but fixed: instances starting together take turns running migrations. */
const MIGRATION_LOCK_KEY = 7_263_001;

/**
 * How long a migration's statement waits for a table's lock (`lock_timeout`). A migration that needs a strong lock
 * (ALTER TABLE) and waits behind a long transaction queues every request for that table behind itself; bounded, it
 * gives up instead, the requests go on, and it is tried again (docs/operating/upgrades.md).
 */
export const MIGRATION_LOCK_TIMEOUT_MS = 5_000;

/** Tries of a migration that gave up waiting for a lock, before startup fails with its error. */
export const MIGRATION_LOCK_ATTEMPTS = 12;

/** PostgreSQL's lock_not_available (a statement reached lock_timeout) and deadlock_detected (PostgreSQL ended this
 * migration's transaction to let a request's go on): the migration is tried again. */
const RETRIED = new Set(['55P03', '40P01']);

export interface MigrationRunOptions {
  /** Default MIGRATION_LOCK_TIMEOUT_MS. */
  lockTimeoutMs?: number;
  /** Default MIGRATION_LOCK_ATTEMPTS. */
  attempts?: number;
  /** Default the project's migrations (a test adds its own after them). */
  migrations?: readonly (new () => MigrationInterface)[];
}

/**
 * Applies pending migrations under a session advisory lock, so two instances never migrate at once. Each migration runs
 * in its own transaction unless it says `transaction = false` (an index built CONCURRENTLY cannot run in one). Every
 * statement waits at most `lockTimeoutMs` for a lock; a migration that gave up is tried again after as long, up to
 * `attempts` times (the migrations applied before it stay applied). The pool needs two connections: one holds the
 * advisory lock while TypeORM runs on the other.
 */
export async function runMigrations(url: string, options: MigrationRunOptions = {}): Promise<string[]> {
  const lockTimeoutMs = options.lockTimeoutMs ?? MIGRATION_LOCK_TIMEOUT_MS;
  const attempts = options.attempts ?? MIGRATION_LOCK_ATTEMPTS;
  const dataSource = new DataSource({
    ...dataSourceOptions(url),
    migrations: [...(options.migrations ?? MIGRATIONS)],
    extra: { max: 2, options: `-c lock_timeout=${lockTimeoutMs}` },
  } as ConstructorParameters<typeof DataSource>[0]);
  await dataSource.initialize();
  const runner = dataSource.createQueryRunner();
  try {
    await runner.connect();
    await runner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    const applied: string[] = [];
    for (let attempt = 1; ; attempt++) {
      try {
        applied.push(...(await dataSource.runMigrations({ transaction: 'each' })).map((m) => m.name));
        return applied;
      } catch (error) {
        if (attempt >= attempts || !RETRIED.has((error as { code?: string }).code ?? '')) throw error;
        await new Promise((resolve) => setTimeout(resolve, lockTimeoutMs));
      }
    }
  } finally {
    await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
    await runner.release();
    await dataSource.destroy();
  }
}
