import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pg from 'pg';
import ts from 'typescript';
import type { PostgresServer } from '../../libs/database/src/embedded-postgres.js';

/*
 * Runs outside Jest's module system: Jest transpiles this file but Node loads what it imports, so the launcher (it
 * imports packages only) is transpiled here into node_modules/.cache, where its packages resolve.
 * One PostgreSQL for the run: DATABASE_URL when set, else a throwaway embedded server. It creates an
 * empty template database; the first test file to need it migrates it (test/support/database.ts) and
 * every e2e file clones its own database from it.
 */

type Launcher = typeof import('../../libs/database/src/embedded-postgres.js');
type Packages = typeof import('../support/debian-packages.js');

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function transpiled(file: string): string {
  const { outputText } = ts.transpileModule(readFileSync(join(ROOT, file), 'utf8'), {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  });
  const target = join(ROOT, 'node_modules', '.cache', 'sched-test', `${basename(file, '.ts')}.${process.pid}.mjs`);
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, outputText);
  return pathToFileURL(target).href;
}

declare global {
  var __EMBEDDED_PG__: { server: PostgresServer; directory: string } | undefined;
}

/** What the suite's files need at once (the embedded server is started with it). */
const MIN_CONNECTIONS = 300;

async function startThrowawayPostgres(): Promise<string> {
  const launcher = transpiled('libs/database/src/embedded-postgres.ts');
  const { freePort, PostgresServer } = (await import(launcher).finally(() => rmSync(fileURLToPath(launcher)))) as Launcher;
  const password = randomBytes(12).toString('hex');
  const directory = mkdtempSync(join(tmpdir(), 'sched-test-pg-'));
  chmodSync(directory, 0o755); // as root the server runs as the `postgres` OS user (the launcher relocates it otherwise)
  const server = await PostgresServer.create({
    dataDir: directory,
    port: await freePort(),
    password,
    settings: { max_connections: String(MIN_CONNECTIONS), fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' },
  });
  await server.start();
  globalThis.__EMBEDDED_PG__ = { server, directory };
  return `postgres://postgres:${password}@127.0.0.1:${server.options.port}/postgres`;
}

export default async function globalSetup(): Promise<void> {
  process.env.TZ = 'UTC';
  // @sparticuz/chromium inflates its browser into the temp directory on first use, and answers that path as soon as
  // it exists: on a fresh machine the browser files of three workers met a half-written binary (spawn ETXTBSY).
  // Inflated once here, before any worker starts.
  const { default: chromium } = await import('@sparticuz/chromium');
  await chromium.executablePath();
  // Debian's packages the files run (Radicale, HAProxy, Prometheus, Patroni, etcd), installed when missing before any
  // worker starts: inside a file's hook the install outran the hook's 30 s on a fresh machine.
  const packages = transpiled('test/support/debian-packages.ts');
  const { DEBIAN_PACKAGES, ensureDebianPackages } = (await import(packages).finally(() => rmSync(fileURLToPath(packages)))) as Packages;
  ensureDebianPackages(Object.keys(DEBIAN_PACKAGES) as (keyof typeof DEBIAN_PACKAGES)[]);
  const adminUrl = process.env.DATABASE_URL || (await startThrowawayPostgres());
  const template = `sched_tmpl_${process.pid}_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    // Four files at once, some with four instances (a pool of 10 and six LISTEN sessions each): with fewer connections
    // the suite fails by chance ("sorry, too many clients already"), so it refuses to start instead.
    const { rows } = await admin.query<{ max_connections: string }>('SHOW max_connections');
    if (Number(rows[0].max_connections) < MIN_CONNECTIONS) {
      throw new Error(
        `The suite needs a PostgreSQL server with max_connections >= ${MIN_CONNECTIONS} (DATABASE_URL's has ${rows[0].max_connections}): ` +
          `ALTER SYSTEM SET max_connections = ${MIN_CONNECTIONS} and restart it (as .ci/run does), or unset DATABASE_URL for the embedded one`,
      );
    }
    await admin.query(`CREATE DATABASE "${template}"`);
  } finally {
    await admin.end();
  }
  process.env.TEST_ADMIN_DATABASE_URL = adminUrl;
  process.env.TEST_TEMPLATE_DATABASE = template;
}
