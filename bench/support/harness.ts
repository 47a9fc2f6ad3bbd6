/**
 * Shared by the HTTP benchmarks: a real app on a fresh, migrated database, and autocannon run as a
 * separate process (so the load generator does not share the server's event loop).
 */
import { readFileSync } from 'node:fs';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Controller, Get, Module, Param, type Type } from '@nestjs/common';
import { SkipThrottle } from '@nestjs/throttler';
import { DataSource } from 'typeorm';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import pg from 'pg';
import { loadConfig, Public, SystemClock } from '../../libs/common/src/index.js';
import { runMigrations, startEmbeddedPostgres } from '../../libs/database/src/index.js';
import { createApp } from '../../apps/api/src/bootstrap.js';

const run = promisify(execFile);

/** The machine baseline every HTTP benchmark measures in the same run: one primary-key lookup through the whole Nest pipeline. */
@Public()
@SkipThrottle()
@Controller('bench')
class BaselineController {
  constructor(private readonly dataSource: DataSource) {}

  @Get('baseline/:id')
  async baseline(@Param('id') id: string): Promise<unknown> {
    const rows: unknown[] = await this.dataSource.query('SELECT id, name, slug FROM organizations WHERE id = $1', [id]);
    return { organization: rows[0] ?? null };
  }
}

@Module({ controllers: [BaselineController] })
export class BaselineModule {}

export interface BenchApp {
  app: NestFastifyApplication;
  url: string;
  databaseUrl: string;
  close(): Promise<void>;
}

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/** Every instance of a run shares one key, as instances of a deployment do (secrets sealed by one open on another). */
export const BENCH_ENCRYPTION_KEY = Buffer.alloc(32, 1).toString('base64');

/** Another instance of the app on a bench database (a second process's view: its own pools, caches). */
export async function startInstance(
  databaseUrl: string,
  extraModules: Type[] = [],
  env: Record<string, string> = {},
): Promise<{ app: NestFastifyApplication; url: string }> {
  const config = loadConfig({
    NODE_ENV: 'test',
    DATABASE_URL: databaseUrl,
    DATA_DIR: mkdtempSync(join(os.tmpdir(), 'sched-bench-data-')),
    JWT_SECRET: 'bench-secret-that-is-at-least-32-characters',
    ENCRYPTION_KEY: BENCH_ENCRYPTION_KEY,
    LOG_LEVEL: 'silent',
    RATE_LIMIT_USER_PER_MINUTE: '1000000',
    RATE_LIMIT_PUBLIC_PER_MINUTE: '1000000',
    ...env,
  });
  const app = await createApp({ config, clock: new SystemClock(), extraModules });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { app, url: `http://127.0.0.1:${port}` };
}

/**
 * A PostgreSQL server where the bench may create databases: DATABASE_URL's when set, else an embedded one started here
 * (the quick start's; `stop` stops it), so every bench runs on a fresh machine.
 */
export async function benchServer(): Promise<{ adminUrl: string; stop?: () => Promise<void> }> {
  const adminUrl = process.env.DATABASE_URL;
  if (adminUrl) return { adminUrl };
  const dir = mkdtempSync(join(os.tmpdir(), 'sched-bench-'));
  chmodSync(dir, 0o755);
  const embedded = await startEmbeddedPostgres(dir, { database: 'postgres' });
  return { adminUrl: embedded.url, stop: embedded.stop };
}

export async function startBenchApp(extraModules: Type[] = [], env: Record<string, string> = {}): Promise<BenchApp> {
  const { adminUrl, stop: stopEmbedded } = await benchServer();
  const database = `sched_bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${database}"`);
  const databaseUrl = withDatabase(adminUrl, database);
  await runMigrations(databaseUrl);
  const { app, url } = await startInstance(databaseUrl, extraModules, env);
  return {
    app,
    url,
    databaseUrl,
    close: async () => {
      await app.close();
      await admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
      await admin.end();
      await stopEmbedded?.();
    },
  };
}

export interface LoadResult {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  requests: number;
  non2xx: number;
  errors: number;
}

/**
 * The same load split over several autocannon processes, one header set each (e.g. one API key
 * each, so a key's 10,000-per-minute limit does not cap the measurement). Requests per second add
 * up; p50 is the request-weighted mean and p99 the worst of the processes' p99s (conservative).
 */
export async function loadSplit(
  url: string,
  options: { connections: number; seconds: number; headers: Record<string, string>[] },
): Promise<LoadResult> {
  const share = Math.max(1, Math.floor(options.connections / options.headers.length));
  const parts = await Promise.all(options.headers.map((headers) => load(url, { connections: share, seconds: options.seconds, headers })));
  const requests = parts.reduce((sum, p) => sum + p.requests, 0);
  return {
    requestsPerSecond: parts.reduce((sum, p) => sum + p.requestsPerSecond, 0),
    p50: Math.round((parts.reduce((sum, p) => sum + p.p50 * p.requests, 0) / Math.max(1, requests)) * 10) / 10,
    p99: Math.max(...parts.map((p) => p.p99)),
    requests,
    non2xx: parts.reduce((sum, p) => sum + p.non2xx, 0),
    errors: parts.reduce((sum, p) => sum + p.errors, 0),
  };
}

/** autocannon's CLI in its own process; returns its JSON summary. */
export async function load(
  url: string,
  options: { connections: number; seconds: number; headers?: Record<string, string> },
): Promise<LoadResult> {
  const args = ['node_modules/autocannon/autocannon.js', '-j', '-c', String(options.connections), '-d', String(options.seconds)];
  for (const [name, value] of Object.entries(options.headers ?? {})) args.push('-H', `${name}=${value}`);
  args.push(url);
  const { stdout } = await run(process.execPath, args, { maxBuffer: 64 * 1024 * 1024 });
  const result = JSON.parse(stdout) as {
    requests: { average: number; total: number };
    latency: { p50: number; p99: number };
    non2xx: number;
    errors: number;
  };
  return {
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

export function machine(): string {
  const cpus = os.cpus();
  return `Node ${process.version}, ${cpus.length} × ${cpus[0]?.model.trim() ?? 'cpu'}, ${os.platform()} ${os.arch()}`;
}

/** Busy CPU time of the whole machine so far, in milliseconds (/proc/stat; every process, every core). */
export function machineBusyMs(): number {
  const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0].trim().split(/\s+/);
  const [user, nice, system, , , irq, softirq, steal] = fields.map(Number);
  return ((user + nice + system + irq + softirq + steal) * 1000) / 100; // USER_HZ is 100 on Linux
}

/** CPU milliseconds of this process so far, and of its children that have exited (the load generators). */
export function processCpuMs(): { self: number; children: number } {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
  // After the command's ") ": state is field 3, so utime..cstime (14..17) sit at 11..14.
  const children = ((Number(fields[13]) + Number(fields[14])) * 1000) / 100;
  const usage = process.cpuUsage();
  return { self: (usage.user + usage.system) / 1000, children };
}

export function row(cells: (string | number)[]): string {
  return `| ${cells.join(' | ')} |`;
}
