import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '@app/database';
import { startTestApp, TEST_DB_POOL_SIZE, TEST_ENCRYPTION_KEY, TEST_JWT_SECRET, type TestApp } from './support/app.js';
import { registerOwner } from './support/factories.js';
import { cleanEnv, compiledServer, spawnShell, waitFor, type SpawnedProcess } from './support/process.js';
import { promtool, samples, valueOf } from './support/prometheus.js';
import { createWebhook, eventually, recordEvents, WebhookReceiver } from './support/webhooks.js';

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');
const TOKEN = 'worker-metrics-token-0123456789';

/**
 * A worker process (`npm run start:worker`, compiled as production runs it) serves its own /metrics on METRICS_PORT
 * (contract § 19): the webhook attempts it makes, the queues (the outbox too), its pool and Node's process metrics,
 * under the API's access rules. The API instance here runs no jobs, as in the scale-out layout.
 */
describe('the worker’s own /metrics on METRICS_PORT (contract § 19)', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'sched-worker-metrics-'));
  let worker: string;
  let api: TestApp;
  let receiver: WebhookReceiver;
  const processes: SpawnedProcess[] = [];

  beforeAll(async () => {
    ({ worker } = await compiledServer());
    receiver = await WebhookReceiver.start();
    api = await startTestApp({ env: { RUN_WORKERS: 'false' } });
  }, 120_000);

  afterAll(async () => {
    for (const proc of processes) if (proc.child.exitCode === null && proc.child.signalCode === null) proc.child.kill('SIGKILL');
    await api?.close();
    await receiver?.stop();
    rmSync(scratch, { recursive: true, force: true });
  });

  function startWorker(env: Record<string, string>): SpawnedProcess {
    const proc = spawnShell(
      `exec node ${worker}`,
      {
        ...cleanEnv({}),
        NODE_ENV: 'test',
        DATABASE_URL: api.databaseUrl,
        JWT_SECRET: TEST_JWT_SECRET,
        DB_POOL_SIZE: TEST_DB_POOL_SIZE,
        ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
        LOG_LEVEL: 'info',
        DATA_DIR: join(scratch, `data-${processes.length}`),
        WEBHOOK_TIMEOUT_MS: '2000',
        ...env,
      },
      ROOT,
    );
    processes.push(proc);
    return proc;
  }

  const running = (proc: SpawnedProcess): Promise<true> =>
    waitFor(
      async () => (proc.output().includes('Worker running') ? true : undefined),
      30_000,
      () => `the worker (${proc.output().slice(-1000)})`,
    );

  async function stopped(proc: SpawnedProcess): Promise<void> {
    proc.child.kill('SIGTERM');
    const code = await proc.exited;
    if (code !== 0) console.log(proc.output().slice(-3000));
    expect(code).toBe(0);
  }

  it('counts the webhook attempts it makes and serves them with the queues (outbox too), its pool and process metrics; closes on SIGTERM', async () => {
    const port = await freePort();
    const proc = startWorker({ METRICS_PORT: String(port) });
    await running(proc);
    const url = `http://127.0.0.1:${port}/metrics`;

    const owner = await registerOwner(api.http);
    const hook = await createWebhook(api.http, { token: owner.accessToken }, { url: receiver.url('/worker'), events: ['*'] });
    receiver.expectSecret('/worker', hook.secret);
    const eventIds = await recordEvents(
      api,
      Array.from({ length: 3 }, () => ({ organizationId: owner.organizationId, type: 'booking.created' as const })),
    );
    await receiver.waitFor(() => eventIds.every((id) => receiver.ids('/worker').has(id)), 20_000, 'the events, from the worker');
    const delivered = receiver.at('/worker').length;

    const text = await eventually(
      async () => {
        const res = await fetch(url);
        const body = await res.text();
        return res.status === 200 && valueOf(body, 'webhook_attempts_total', { outcome: 'succeeded' }) === delivered ? body : undefined;
      },
      10_000,
      'the worker’s attempts on its /metrics',
    );
    expect(
      samples(text, 'webhook_attempts_total')
        .filter((sample) => sample.value > 0)
        .map((sample) => sample.labels.outcome),
    ).toEqual(['succeeded']);
    expect(
      samples(text, 'queue_jobs')
        .filter((sample) => sample.labels.queue === 'outbox')
        .map((sample) => sample.labels.state)
        .sort(),
    ).toEqual(['due', 'failed', 'scheduled']);
    expect(valueOf(text, 'queue_jobs', { queue: 'webhook', state: 'failed' })).toBe(0);
    expect(valueOf(text, 'queue_oldest_due_seconds', { queue: 'outbox' })).toEqual(expect.any(Number));
    expect(samples(text, 'db_pool_connections').map((sample) => sample.labels.state)).toEqual(['idle', 'busy', 'waiting']);
    for (const family of ['process_cpu_user_seconds_total', 'process_resident_memory_bytes', 'nodejs_eventloop_lag_seconds'])
      expect([family, samples(text, family).length]).toEqual([family, 1]);
    expect(await promtool(['check', 'metrics'], text)).toEqual({ code: 0, output: '' });

    // One route: anything else is the contract's 404.
    for (const [method, path] of [
      ['POST', '/metrics'],
      ['GET', '/'],
      ['GET', '/metrics/x'],
    ]) {
      const res = await fetch(`http://127.0.0.1:${port}${path}`, { method });
      expect([method, path, res.status]).toEqual([method, path, 404]);
      expect(await res.json()).toMatchObject({ code: 'NOT_FOUND', requestId: res.headers.get('x-request-id') });
    }

    // fetch keeps its connection open, as Prometheus does: SIGTERM still ends the server and the process at once.
    expect((await fetch(url)).status).toBe(200);
    const stopping = Date.now();
    await stopped(proc);
    expect(Date.now() - stopping).toBeLessThan(10_000);
    await expect(fetch(url)).rejects.toThrow();
  }, 90_000);

  it('with METRICS_TOKEN requires it (401 with the contract body otherwise); in production without a token answers 404', async () => {
    const [tokenPort, productionPort] = await Promise.all([freePort(), freePort()]);
    const withToken = startWorker({ METRICS_PORT: String(tokenPort), METRICS_TOKEN: TOKEN });
    const production = startWorker({ METRICS_PORT: String(productionPort), NODE_ENV: 'production' });
    await Promise.all([running(withToken), running(production)]);

    const tokenUrl = `http://127.0.0.1:${tokenPort}/metrics`;
    for (const headers of [{} as Record<string, string>, { authorization: `Bearer ${TOKEN}x` }, { authorization: TOKEN }]) {
      const res = await fetch(tokenUrl, { headers });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="metrics"');
      expect(await res.json()).toMatchObject({ code: 'UNAUTHORIZED', requestId: res.headers.get('x-request-id') });
    }
    const ok = await fetch(tokenUrl, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(ok.headers.get('cache-control')).toBe('no-store');
    expect(valueOf(await ok.text(), 'webhook_attempts_total', { outcome: 'succeeded' })).toBe(0);

    const closed = await fetch(`http://127.0.0.1:${productionPort}/metrics`);
    expect(closed.status).toBe(404);
    expect(await closed.json()).toMatchObject({ code: 'NOT_FOUND' });

    await Promise.all([stopped(withToken), stopped(production)]);
  }, 90_000);

  it('a bad METRICS_PORT stops the boot naming it, and so does a port in use', async () => {
    const bad = startWorker({ METRICS_PORT: '70000' });
    expect(await bad.exited).not.toBe(0);
    expect(bad.output()).toContain('Configuration error: METRICS_PORT must be an integer from 0 to 65535');

    const taken = createServer();
    await new Promise<void>((done) => taken.listen(0, '0.0.0.0', done));
    const { port } = taken.address() as { port: number };
    try {
      const clash = startWorker({ METRICS_PORT: String(port) });
      expect(await clash.exited).not.toBe(0);
      expect(clash.output()).toContain(`METRICS_PORT ${port}: cannot listen (EADDRINUSE)`);
    } finally {
      await new Promise((done) => taken.close(done));
    }
  }, 60_000);

  it('Prometheus scrapes the worker as its own job, and the webhook alert reads it', () => {
    const config = readFileSync(join(ROOT, 'deploy/prometheus/prometheus.yml'), 'utf8');
    expect(config).toMatch(/- job_name: scheduling-worker\n(?:.*\n)*?\s+- targets: \['worker-1\.internal:9464'\]/);
    const alerts = readFileSync(join(ROOT, 'deploy/prometheus/alerts.yml'), 'utf8');
    expect(alerts).toContain('webhook_attempts_total{job=~"scheduling-api|scheduling-worker",outcome!="succeeded"}');
  });
});
