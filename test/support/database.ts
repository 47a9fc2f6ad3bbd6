import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { runMigrations } from '@app/database';
import { databaseUrlFor } from './database-url.js';

const MIGRATED = 'migrated';
const DROP_TIMEOUT_MS = 20_000;

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
  // Named after the run's template, so the run's end finds any clone a file could not drop (global-teardown.ts).
  const name = `${template}_${randomBytes(6).toString('hex')}`;
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
  // Bounded: a drop that cannot finish (a loaded machine, a session that will not go) leaves the clone to the run's end
  // rather than failing the file that made it.
  const drop = async (): Promise<void> => {
    const client = new pg.Client({ connectionString: adminUrl, statement_timeout: DROP_TIMEOUT_MS });
    try {
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    } catch (error) {
      console.warn(`Test database ${name} not dropped (${(error as Error).message}); the run's end drops it`);
    } finally {
      await client.end().catch(() => undefined);
    }
  };
  return { url: databaseUrlFor(adminUrl, name), drop };
}

/**
 * Every row of every table of the database as text (`row::text`, one a line, per table under its name): what a
 * data-only `pg_dump` holds, whatever the server's version (the embedded PostgreSQL of `npm test` is newer than the
 * machine's `pg_dump`, which refuses to dump a newer server).
 */
export async function dumpAllRows(databaseUrl: string): Promise<string> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const tables = await client.query<{ name: string }>(
      `SELECT format('%I.%I', table_schema, table_name) AS name FROM information_schema.tables
        WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY 1`,
    );
    const parts: string[] = [];
    for (const { name } of tables.rows) {
      const rows = await client.query<{ row: string }>(`SELECT t::text AS row FROM ${name} t`);
      parts.push(`-- ${name}`, ...rows.rows.map(({ row }) => row));
    }
    return parts.join('\n');
  } finally {
    await client.end();
  }
}
