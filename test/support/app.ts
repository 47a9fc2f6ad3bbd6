import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Type } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import pg from 'pg';
import type { Logger } from 'pino';
import { AppConfig, FixedClock, loadConfig } from '@app/common';
import { createApp } from '../../apps/api/src/bootstrap.js';
import { cloneTestDatabase } from './database.js';
import { HttpClient } from './http.js';

export const TEST_JWT_SECRET = 'test-secret-that-is-at-least-32-characters-long';
/** 32 bytes, base64: the key calendar secrets are sealed with in tests. */
export const TEST_ENCRYPTION_KEY = Buffer.alloc(32, 7).toString('base64');
/**
 * Each instance's pool in the tests. Four files run at once, some with four instances (in process or spawned), each
 * also holding six LISTEN sessions: with 10 per pool they stay under the 300 connections the suite asks of its server
 * (test/setup/global-setup.ts).
 */
export const TEST_DB_POOL_SIZE = '10';

export interface TestAppOptions {
  env?: Record<string, string>;
  /** Reuse another test app's database: a second instance of the same service. */
  databaseUrl?: string;
  clock?: FixedClock;
  extraModules?: Type[];
  /** A logger of the test's own, to read what the app logs. */
  logger?: Logger;
  /** The port to listen on (default: any free one), for a test that must know its URL before the app starts. */
  port?: number;
}

export interface TestApp {
  app: NestFastifyApplication;
  http: HttpClient;
  url: string;
  clock: FixedClock;
  config: AppConfig;
  databaseUrl: string;
  close(): Promise<void>;
}

/**
 * Every app this file started and has not closed. A test that fails before its own `close` would leave an instance's
 * job loops, pool and server running past the file (they then fail in the next file of the worker, and keep the
 * worker from exiting): the last hook of the file closes whatever is left.
 */
const running = new Map<NestFastifyApplication, () => Promise<void>>();
const databases = new Set<() => Promise<void>>();
afterAll(async () => {
  await Promise.all([...running.values()].map((close) => close().catch(() => undefined)));
  await Promise.all([...databases].map((drop) => drop().catch(() => undefined)));
});

/** How long an app may take to close before what it waits for is printed and its HTTP connections are cut. */
const CLOSE_GRACE_MS = 10_000;

/**
 * Closes an app; one still closing after CLOSE_GRACE_MS (a hook's limit is 30 s) prints what it still holds (HTTP
 * connections, the process's active resources, its database sessions), then has its HTTP connections cut.
 */
async function closeWatched(close: () => Promise<void>, app: NestFastifyApplication, databaseUrl: string): Promise<void> {
  const closing = close();
  void closing.catch(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), CLOSE_GRACE_MS);
  });
  const first = await Promise.race([closing.then(() => 'closed' as const), late]).finally(() => clearTimeout(timer));
  if (first === 'closed') return;
  const server = app.getHttpServer();
  const connections = await new Promise<number>((resolve) => server.getConnections((_, count) => resolve(count)));
  const resources: Record<string, number> = {};
  for (const resource of process.getActiveResourcesInfo()) resources[resource] = (resources[resource] ?? 0) + 1;
  console.warn(
    [
      `A test app is still closing after ${CLOSE_GRACE_MS} ms; cutting its HTTP connections.`,
      `HTTP server listening: ${server.listening}, open connections: ${connections}`,
      `active resources: ${JSON.stringify(resources)}`,
      `database sessions: ${await sessionsOf(databaseUrl)}`,
    ].join('\n'),
  );
  server.closeAllConnections();
  await closing;
}

/** The sessions open on a test database, what each is doing (for closeWatched's report). */
async function sessionsOf(databaseUrl: string): Promise<string> {
  const client = new pg.Client({ connectionString: process.env.TEST_ADMIN_DATABASE_URL, statement_timeout: 5_000 });
  try {
    await client.connect();
    const sessions = await client.query<{ session: string }>(
      `SELECT format('%s %s %s/%s: %s', application_name, state, wait_event_type, wait_event, left(query, 120)) AS session
         FROM pg_stat_activity WHERE datname = $1`,
      [new URL(databaseUrl).pathname.slice(1)],
    );
    return JSON.stringify(sessions.rows.map((row) => row.session));
  } catch (error) {
    return `unknown (${(error as Error).message})`;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Boots the real application on a random port against its own cloned database. */
export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const database = options.databaseUrl ? undefined : await cloneTestDatabase();
  const databaseUrl = options.databaseUrl ?? database!.url;
  const config = loadConfig({
    NODE_ENV: 'test',
    PORT: '0',
    DATABASE_URL: databaseUrl,
    DATA_DIR: mkdtempSync(join(tmpdir(), 'sched-test-data-')),
    JWT_SECRET: TEST_JWT_SECRET,
    ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    LOG_LEVEL: 'silent',
    RATE_LIMIT_USER_PER_MINUTE: '100000',
    RATE_LIMIT_PUBLIC_PER_MINUTE: '100000',
    // Suites book through one publishable key from 127.0.0.1 many times; the tests of the limit set it back.
    PUBLIC_BOOKINGS_PER_VISITOR_PER_HOUR: '100000',
    DB_POOL_SIZE: TEST_DB_POOL_SIZE,
    // Closing at once: nothing here routes by readiness (test/rolling-restart.e2e-spec.ts sets it).
    SHUTDOWN_DRAIN_MS: '0',
    ...options.env,
  });
  const clock = options.clock ?? new FixedClock(Date.now());
  const app = await createApp({ config, clock, extraModules: options.extraModules, logger: options.logger });
  // Nest's application proxy ignores assignments: the watched close is this file's own.
  const closeApp = (): Promise<void> => closeWatched(() => app.close(), app, databaseUrl);
  running.set(app, closeApp);
  if (database) databases.add(database.drop);
  await app.listen({ port: options.port ?? 0, host: '127.0.0.1' });
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const url = `http://127.0.0.1:${port}`;
  return {
    app,
    http: new HttpClient(url, {
      checkContract: true,
      documentKey: [config.appUrl, ...(options.extraModules ?? []).map((module) => module.name)].join(' '),
    }),
    url,
    clock,
    config,
    databaseUrl,
    close: async () => {
      running.delete(app);
      await closeApp();
      if (database) databases.delete(database.drop);
      await database?.drop();
    },
  };
}
