import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Injectable, Module, type OnModuleDestroy } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { freePort } from '@app/database';
import { startTestApp, TEST_DB_POOL_SIZE, TEST_ENCRYPTION_KEY, TEST_JWT_SECRET } from './support/app.js';
import { cloneTestDatabase } from './support/database.js';
import { HaproxyServer } from './support/haproxy.js';
import { cleanEnv, compiledServer, spawnShell, waitFor, type SpawnedProcess } from './support/process.js';

/*
 * Contract § 19 "High availability", last paragraph: behind HAProxy with deploy/haproxy/haproxy.cfg, an instance stops
 * being ready (GET /health/ready 503) before it stops accepting, so a rolling restart (SIGTERM one, start it again, then
 * the other) loses no request; with no instance up HAProxy answers the contract's 503 body with Retry-After; and the
 * shutdown closes the HTTP server before the modules it needs.
 */

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

describe('rolling restart behind HAProxy', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'sched-rolling-'));
  const processes: SpawnedProcess[] = [];
  let server: { api: string };
  let databaseUrl: string;
  let drop: () => Promise<void>;
  let proxy: HaproxyServer | undefined;

  beforeAll(async () => {
    server = await compiledServer();
    const database = await cloneTestDatabase();
    databaseUrl = database.url;
    drop = () => database.drop();
  }, 180_000);

  afterAll(async () => {
    await proxy?.stop();
    for (const proc of processes) if (proc.child.exitCode === null && proc.child.signalCode === null) proc.child.kill('SIGKILL');
    await Promise.all(processes.map((proc) => proc.exited));
    await drop?.();
    rmSync(scratch, { recursive: true, force: true });
  });

  /** The API as production runs it (`node main.js`), behind one proxy hop. */
  function start(port: number): SpawnedProcess {
    const env = {
      ...cleanEnv({}),
      NODE_ENV: 'test',
      PORT: String(port),
      DATABASE_URL: databaseUrl,
      JWT_SECRET: TEST_JWT_SECRET,
      ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      DB_POOL_SIZE: TEST_DB_POOL_SIZE,
      TRUST_PROXY: '1',
      SHUTDOWN_DRAIN_MS: '3000',
      RATE_LIMIT_USER_PER_MINUTE: '100000',
      RATE_LIMIT_PUBLIC_PER_MINUTE: '100000',
      LOG_LEVEL: 'warn',
      DATA_DIR: join(scratch, `data-${port}`),
      RUN_WORKERS: 'false',
      ADMIN_DIR: join(scratch, 'no-console'),
    };
    const proc = spawnShell(`exec node ${server.api}`, env, ROOT);
    processes.push(proc);
    return proc;
  }

  const ready = (port: number, proc: SpawnedProcess) =>
    waitFor(
      async () => ((await fetch(`http://127.0.0.1:${port}/health/ready`)).status === 200 ? true : undefined),
      60_000,
      () => `port ${port}: ${proc.output().slice(-2000)}`,
    );

  it('loses no request while each instance in turn is stopped (SIGTERM) and started again', async () => {
    const ports = [await freePort(), await freePort()];
    const running = ports.map((port) => start(port));
    await Promise.all(ports.map((port, i) => ready(port, running[i])));
    proxy = await HaproxyServer.start(ports.map((port) => `127.0.0.1:${port}`));
    const registered = await fetch(`${proxy.url}/v1/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: `rolling-${Date.now()}@example.com`, password: 'rolling password 1', organizationName: 'Rolling' }),
    });
    expect(registered.status).toBe(201);
    const { accessToken } = (await registered.json()) as { accessToken: string };
    // Both instances up in HAProxy's eyes (`rise 2` checks a second apart).
    await sleep(3000);

    // A steady stream: four clients on keep-alive connections to the proxy, each asking again as soon as answered.
    const statuses: (number | string)[] = [];
    let stopped = false;
    const client = async (): Promise<void> => {
      while (!stopped) {
        try {
          const res = await fetch(`${proxy!.url}/v1/event-types`, { headers: { authorization: `Bearer ${accessToken}` } });
          await res.arrayBuffer();
          statuses.push(res.status);
        } catch (error) {
          statuses.push(`${(error as Error).message} ${String((error as Error).cause)}`);
        }
        await sleep(20);
      }
    };
    const clients = Promise.all([client(), client(), client(), client()]);

    try {
      for (const i of [0, 1]) {
        await sleep(1000);
        const stopping = running[i];
        const port = ports[i];
        stopping.child.kill('SIGTERM');
        // Not ready as soon as the signal is handled, still accepting: the balancer's checks see the 503 before
        // anything is refused.
        const code = await waitFor(
          async () => {
            const probe = await fetch(`http://127.0.0.1:${port}/health/ready`);
            return probe.status === 503 ? ((await probe.json()) as { code: string }).code : undefined;
          },
          2000,
          'readiness to answer 503',
        );
        expect(code).toBe('SERVICE_UNAVAILABLE');
        expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
        expect(await stopping.exited).toBe(0);
        running[i] = start(port);
        await ready(port, running[i]);
        await sleep(3000);
      }
      await sleep(1000);
    } finally {
      stopped = true;
      await clients;
    }

    const failed = statuses.filter((status) => typeof status !== 'number' || status < 200 || status > 299);
    expect(failed).toEqual([]);
    expect(statuses.length).toBeGreaterThan(100);
  }, 180_000);

  it('answers with no instance up: the contract 503 body, Retry-After, X-Request-Id', async () => {
    const outage = await HaproxyServer.start([`127.0.0.1:${await freePort()}`]);
    try {
      for (const path of ['/v1/bookings', '/health/ready']) {
        const res = await fetch(`${outage.url}${path}`, { method: path === '/v1/bookings' ? 'POST' : 'GET' });
        expect(res.status).toBe(503);
        expect(res.headers.get('content-type')).toBe('application/json');
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
        const body = (await res.json()) as Record<string, unknown>;
        expect(Object.keys(body).sort()).toEqual(['code', 'message', 'requestId']);
        expect(body.code).toBe('SERVICE_UNAVAILABLE');
        expect(typeof body.message).toBe('string');
        expect(body.requestId).toBe(res.headers.get('x-request-id'));
      }
    } finally {
      await outage.stop();
    }
  }, 30_000);
});

/** What a module that needs the HTTP server gone sees when Nest destroys it. */
const seen: { listeningAtDestroy?: boolean } = {};

@Injectable()
class ServerWatcher implements OnModuleDestroy {
  constructor(private readonly host: HttpAdapterHost) {}

  onModuleDestroy(): void {
    seen.listeningAtDestroy = (this.host.httpAdapter.getHttpServer() as { listening: boolean }).listening;
  }
}

@Module({ providers: [ServerWatcher] })
class ServerWatcherModule {}

describe('shutdown order', () => {
  it('closes the HTTP server before the modules are destroyed', async () => {
    const t = await startTestApp({ extraModules: [ServerWatcherModule] });
    expect((await fetch(`${t.url}/health`)).status).toBe(200);
    await t.close();
    expect(seen.listeningAtDestroy).toBe(false);
  }, 60_000);
});
