import { DataSource } from 'typeorm';
import { dataSourceOptions } from './data-source-options.js';

/** Arbitrary but fixed: instances starting together take turns running migrations. */
const MIGRATION_LOCK_KEY = 7_263_001;

/** Applies pending migrations under a session advisory lock, so two instances never migrate at once.
 * The pool needs two connections: one holds the lock while TypeORM runs on the other. */
export async function runMigrations(url: string): Promise<string[]> {
  const dataSource = new DataSource({ ...dataSourceOptions(url), extra: { max: 2 } } as ConstructorParameters<typeof DataSource>[0]);
  await dataSource.initialize();
  const runner = dataSource.createQueryRunner();
  try {
    await runner.connect();
    await runner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    return applied.map((m) => m.name);
  } finally {
    await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
    await runner.release();
    await dataSource.destroy();
  }
}
