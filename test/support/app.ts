import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Type } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Logger } from 'pino';
import { AppConfig, FixedClock, loadConfig } from '@app/common';
import { createApp } from '../../apps/api/src/bootstrap.js';
import { cloneTestDatabase } from './database.js';
import { HttpClient } from './http.js';

export const TEST_JWT_SECRET = 'test-secret-that-is-at-least-32-characters-long';
/** 32 bytes, base64: the key calendar secrets are sealed with in tests. */
export const TEST_ENCRYPTION_KEY = Buffer.alloc(32, 7).toString('base64');

export interface TestAppOptions {
  env?: Record<string, string>;
  /** Reuse another test app's database: a second instance of the same service. */
  databaseUrl?: string;
  clock?: FixedClock;
  extraModules?: Type[];
  /** A logger of the test's own, to read what the app logs. */
  logger?: Logger;
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
const running = new Set<NestFastifyApplication>();
const databases = new Set<() => Promise<void>>();
afterAll(async () => {
  await Promise.all([...running].map((app) => app.close().catch(() => undefined)));
  await Promise.all([...databases].map((drop) => drop().catch(() => undefined)));
});

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
    ...options.env,
  });
  const clock = options.clock ?? new FixedClock(Date.now());
  const app = await createApp({ config, clock, extraModules: options.extraModules, logger: options.logger });
  running.add(app);
  const closeApp = app.close.bind(app);
  app.close = async () => {
    running.delete(app);
    await closeApp();
  };
  if (database) databases.add(database.drop);
  await app.listen({ port: 0, host: '127.0.0.1' });
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
      await app.close();
      if (database) databases.delete(database.drop);
      await database?.drop();
    },
  };
}
