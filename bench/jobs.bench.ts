/**
 * The jobs-framework choice (issue 13): how fast each candidate drains a backlog of no-op jobs from
 * PostgreSQL with 32 in flight, measured in one run on one database.
 *
 * - ours: `JobLoop` with the `LeaseQueue` every queue of the service claims with (one `UPDATE … FOR UPDATE SKIP
 *   LOCKED … RETURNING` leasing up to the free slots) and outcomes written in groups (`GroupCommit`).
 * - pg-boss and graphile-worker, when installed. Their current versions need Node 22 (pg-boss 11+ and
 *   graphile-worker 0.17+); the last ones that run on Node 20 are measured:
 *     npm install --no-save pg-boss@10.4.2 graphile-worker@0.16.6
 *
 *   DATABASE_URL=postgres://… npm run bench:jobs   (without DATABASE_URL: an embedded server, as every bench)
 */
import { Logger } from '@nestjs/common';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { TransactionHost } from '@app/database';
import { GroupCommit, JobLoop, LeaseQueue } from '../apps/api/src/jobs/index.js';
import { benchServer, machine } from './support/harness.js';

const JOBS = Number(process.env.BENCH_JOBS ?? 5000);
const CONCURRENCY = 32;

interface Result {
  engine: string;
  version: string;
  jobsPerSecond: number;
  seconds: number;
  note?: string;
}

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

async function scratchDatabase(adminUrl: string, name: string): Promise<{ url: string; drop(): Promise<void> }> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name}`);
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  return {
    url: withDatabase(adminUrl, name),
    drop: async () => {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

/** Resolves when `count()` reaches `total`, polling every 10 ms. */
async function until(count: () => number, total: number): Promise<void> {
  while (count() < total) await new Promise((resolve) => setTimeout(resolve, 10));
}

async function ours(url: string): Promise<Result> {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  await pool.query(`CREATE TABLE jobs (
    id bigserial PRIMARY KEY, status text NOT NULL DEFAULT 'pending', attempts int NOT NULL DEFAULT 0,
    next_attempt_at timestamptz NOT NULL DEFAULT now(), locked_until timestamptz)`);
  await pool.query(`CREATE INDEX jobs_due ON jobs (next_attempt_at) WHERE status = 'pending'`);
  // As every queue table has it (migration LeasedRows): the leased rows, for the next wake-up.
  await pool.query(`CREATE INDEX jobs_leased ON jobs (locked_until) WHERE locked_until IS NOT NULL`);
  await pool.query(`INSERT INTO jobs (status) SELECT 'pending' FROM generate_series(1, $1)`, [JOBS]);
  const dataSource = await new DataSource({ type: 'postgres', url, poolSize: 10 }).initialize();
  const queue = new LeaseQueue<{ id: string }>(new TransactionHost(dataSource), {
    table: 'jobs',
    waiting: `c.status = 'pending'`,
    dueColumn: 'next_attempt_at',
    order: 'c.next_attempt_at',
    countsAttempts: true,
    returning: 'q.id',
  });
  let done = 0;
  let inFlight = 0;
  const outcomes = new GroupCommit<number>(async (ids) => {
    await pool.query(`UPDATE jobs SET status = 'done', locked_until = NULL WHERE id = ANY($1::bigint[])`, [ids]);
    done += ids.length;
  });
  const loop: JobLoop = new JobLoop({
    name: 'bench-jobs',
    logger: new Logger('bench'),
    pollIntervalMs: 1000,
    tick: async () => {
      const free = CONCURRENCY - inFlight;
      if (free <= 0) return undefined;
      const rows = await queue.claim(free, 30);
      for (const row of rows) {
        inFlight++;
        // The job itself does nothing: what is measured is the queue's own cost.
        void outcomes.submit(Number(row.id)).finally(() => {
          inFlight--;
          loop.wake();
        });
      }
      return rows.length > 0 ? 'again' : undefined;
    },
  });
  const started = performance.now();
  await loop.start();
  await until(() => done, JOBS);
  const seconds = (performance.now() - started) / 1000;
  await loop.stop();
  await dataSource.destroy();
  await pool.end();
  return { engine: 'ours (JobLoop + LeaseQueue claim + group commit)', version: '-', jobsPerSecond: JOBS / seconds, seconds };
}

type Loader = (name: string) => Promise<Record<string, unknown>>;
const load: Loader = (name) => import(name) as Promise<Record<string, unknown>>;

async function installedVersion(name: string): Promise<string | undefined> {
  try {
    const { createRequire } = await import('node:module');
    const require = createRequire(import.meta.url);
    return (require(`${name}/package.json`) as { version: string }).version;
  } catch {
    return undefined;
  }
}

interface PgBossLike {
  start(): Promise<unknown>;
  stop(options?: { graceful?: boolean; wait?: boolean }): Promise<void>;
  createQueue(name: string): Promise<void>;
  insert(jobs: Array<{ name: string; data: object }>): Promise<void>;
  work(
    name: string,
    options: { batchSize: number; pollingIntervalSeconds: number },
    handler: (jobs: unknown[]) => Promise<void>,
  ): Promise<string>;
  on(event: 'error', listener: (error: unknown) => void): void;
}

async function pgBoss(url: string, workers: number): Promise<Result | undefined> {
  const version = await installedVersion('pg-boss');
  if (!version) return undefined;
  const module = await load('pg-boss');
  const PgBoss = (module.PgBoss ?? module.default) as new (url: string) => PgBossLike;
  const boss = new PgBoss(url);
  boss.on('error', () => undefined);
  await boss.start();
  await boss.createQueue('bench');
  for (let i = 0; i < JOBS; i += 1000) {
    await boss.insert(Array.from({ length: Math.min(1000, JOBS - i) }, () => ({ name: 'bench', data: {} })));
  }
  let done = 0;
  const started = performance.now();
  // Each work() call fetches `batchSize` jobs at a time, completes them together, and polls again.
  for (let w = 0; w < workers; w++) {
    await boss.work('bench', { batchSize: CONCURRENCY, pollingIntervalSeconds: 0.5 }, async (jobs) => {
      done += jobs.length;
    });
  }
  await until(() => done, JOBS);
  const seconds = (performance.now() - started) / 1000;
  await boss.stop({ graceful: false, wait: true });
  const note = `${workers} work() loop(s) polling at the minimum 0.5 s, batches of 32 (${workers * CONCURRENCY} in flight)`;
  return { engine: 'pg-boss', version, jobsPerSecond: JOBS / seconds, seconds, note };
}

interface RunnerLike {
  stop(): Promise<void>;
}

async function graphileWorker(url: string): Promise<Result | undefined> {
  const version = await installedVersion('graphile-worker');
  if (!version) return undefined;
  const {
    run,
    makeWorkerUtils,
    Logger: GraphileLogger,
  } = (await load('graphile-worker')) as {
    run(options: object): Promise<RunnerLike>;
    makeWorkerUtils(options: object): Promise<{ migrate(): Promise<void>; release(): Promise<void> }>;
    Logger: new (factory: () => () => void) => object;
  };
  const logger = new GraphileLogger(() => () => undefined);
  const utils = await makeWorkerUtils({ connectionString: url, logger });
  await utils.migrate();
  await utils.release();
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  await pool.query(`SELECT graphile_worker.add_job('bench', '{}'::json) FROM generate_series(1, $1)`, [JOBS]);
  await pool.end();
  let done = 0;
  const started = performance.now();
  const runner = await run({
    connectionString: url,
    concurrency: CONCURRENCY,
    maxPoolSize: CONCURRENCY + 1,
    noHandleSignals: true,
    pollInterval: 500,
    logger,
    taskList: {
      bench: async () => {
        done++;
      },
    },
  });
  await until(() => done, JOBS);
  const seconds = (performance.now() - started) / 1000;
  await runner.stop();
  return { engine: 'graphile-worker', version, jobsPerSecond: JOBS / seconds, seconds, note: 'LISTEN/NOTIFY, concurrency 32' };
}

async function main(): Promise<void> {
  // Dropping a scratch database ends the connections an engine's pool still keeps; that is expected here.
  process.on('uncaughtException', (error: Error & { code?: string }) => {
    if (error.code !== '57P01') throw error;
  });
  const { adminUrl, stop } = await benchServer();
  const results: Result[] = [];
  for (const [name, engine] of [
    ['ours', ours],
    ['pgboss', (url: string) => pgBoss(url, 1)],
    ['pgboss8', (url: string) => pgBoss(url, 8)],
    ['graphile', graphileWorker],
  ] as const) {
    const database = await scratchDatabase(adminUrl, `bench_jobs_${name}_${process.pid}`);
    try {
      const result = await engine(database.url);
      if (result) {
        results.push(result);
        process.stdout.write(`${result.engine}: ${Math.round(result.jobsPerSecond)} jobs/s\n`);
      } else process.stdout.write(`${name}: not installed (npm install --no-save pg-boss@10.4.2 graphile-worker@0.16.6)\n`);
    } finally {
      await database.drop();
    }
  }
  await stop?.();
  process.stdout.write(`\n${machine()}\n${JOBS} no-op jobs, 32 in flight, drained from a backlog\n\n`);
  process.stdout.write('| Engine | Version | Jobs/s | Seconds | Note |\n| --- | --- | ---: | ---: | --- |\n');
  for (const r of results) {
    process.stdout.write(`| ${r.engine} | ${r.version} | ${Math.round(r.jobsPerSecond)} | ${r.seconds.toFixed(2)} | ${r.note ?? ''} |\n`);
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
