import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { runMigrations } from '@app/database';
import { databaseUrlFor } from './database-url.js';

const MIGRATED = 'migrated';

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the tests through \`npm test\``);
  return value;
}

/**
 * A fresh, migrated database for one test file, cloned from the run's template. The first caller
 * migrates the template; an advisory lock makes the others wait and keeps clones from overlapping
 * (CREATE DATABASE … TEMPLATE refuses while anyone is connected to the template).
 */
export async function cloneTestDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const adminUrl = required('TEST_ADMIN_DATABASE_URL');
  const template = required('TEST_TEMPLATE_DATABASE');
  const name = `sched_t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query('SELECT pg_advisory_lock(hashtext($1))', [template]);
    const state = await admin.query<{ note: string | null }>(
      `SELECT shobj_description(oid, 'pg_database') AS note FROM pg_database WHERE datname = $1`,
      [template],
    );
    if (state.rows[0]?.note !== MIGRATED) {
      await runMigrations(databaseUrlFor(adminUrl, template));
      await admin.query(`COMMENT ON DATABASE "${template}" IS '${MIGRATED}'`);
    }
    await admin.query(`CREATE DATABASE "${name}" TEMPLATE "${template}"`);
  } finally {
    await admin.query('SELECT pg_advisory_unlock(hashtext($1))', [template]).catch(() => undefined);
    await admin.end();
  }
  const drop = async (): Promise<void> => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    } finally {
      await client.end();
    }
  };
  return { url: databaseUrlFor(adminUrl, name), drop };
}
