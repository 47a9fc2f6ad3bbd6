import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DataSource } from 'typeorm';
import { startTestApp, TEST_ENCRYPTION_KEY, TEST_JWT_SECRET, type TestApp } from './support/app.js';
import { registerOwner } from './support/factories.js';
import { cleanEnv, compileEntries, spawnShell, waitFor, type SpawnedProcess } from './support/process.js';
import { createWebhook, eventually, recordEvents, WebhookReceiver } from './support/webhooks.js';

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');

/**
 * The worker as it runs in production (compiled JS, its own process), killed with SIGKILL while
 * attempts are in flight. Built into a directory of its own, so it never races a build of dist/.
 */
describe('webhook delivery survives kill -9', () => {
  const buildDir = join(ROOT, '.data', `wh-build-${process.pid}`);
  let api: TestApp;
  let receiver: WebhookReceiver;
  const processes: SpawnedProcess[] = [];

  beforeAll(async () => {
    await compileEntries(buildDir, ['apps/worker/src/main.ts']);
    receiver = await WebhookReceiver.start();
    api = await startTestApp({ env: { RUN_WORKERS: 'false' } });
  }, 60_000);

  afterAll(async () => {
    for (const proc of processes) if (proc.child.exitCode === null && proc.child.signalCode === null) proc.child.kill('SIGKILL');
    await api?.close();
    await receiver?.stop();
    rmSync(buildDir, { recursive: true, force: true });
  });

  function startWorker(): SpawnedProcess {
    const env = {
      ...cleanEnv({}),
      NODE_ENV: 'test',
      DATABASE_URL: api.databaseUrl,
      JWT_SECRET: TEST_JWT_SECRET,
      ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      LOG_LEVEL: 'info',
      DATA_DIR: join(buildDir, 'data'),
      WEBHOOK_TIMEOUT_MS: '1000',
      WEBHOOK_RETRY_SCHEDULE: '1,1,1,1,1,1,1,1,1,1',
    };
    const proc = spawnShell(`exec node ${join(buildDir, 'apps/worker/src/main.js')}`, env, ROOT);
    processes.push(proc);
    return proc;
  }

  it('delivers every event after the worker is killed mid-attempt and started again', async () => {
    const owner = await registerOwner(api.http);
    const created = await createWebhook(api.http, { token: owner.accessToken }, { url: receiver.url('/durable'), events: ['*'] });
    receiver.expectSecret('/durable', created.secret);
    // The receiver holds every request open: the worker is killed with attempts in flight.
    receiver.respond('/durable', () => ({ status: 200, hang: true }));

    const first = startWorker();
    await waitFor(
      async () => (first.output().includes('Worker running') ? true : undefined),
      15_000,
      `the worker (${first.output().slice(-500)})`,
    );
    const events = Array.from({ length: 20 }, () => ({ organizationId: owner.organizationId, type: 'booking.created' as const }));
    const eventIds = await recordEvents(api, events);
    await receiver.waitFor(() => receiver.at('/durable').length >= 5, 5000, 'attempts in flight');
    first.child.kill('SIGKILL');
    expect(await first.exited).toBeNull();

    // Recorded while no worker runs at all.
    eventIds.push(...(await recordEvents(api, events.slice(0, 10))));
    receiver.respond('/durable', () => ({ status: 200 }));

    const second = startWorker();
    await receiver.waitFor(() => eventIds.every((id) => receiver.ids('/durable').has(id)), 20_000, 'every event after the restart');
    expect(receiver.unverified()).toEqual([]);
    expect(receiver.overlaps).toEqual([]);
    const statuses: { status: string; n: number }[] = await eventually(
      async () => {
        const rows: { status: string; n: number }[] = await api.app
          .get(DataSource)
          .query(`SELECT status, count(*)::int AS n FROM webhook_deliveries GROUP BY status`);
        return rows.length === 1 && rows[0].status === 'succeeded' ? rows : undefined;
      },
      // Requests the killed worker left hanging count as received above, but their deliveries are
      // leased until the lease runs out (timeout + 5 s) and only then retried and marked.
      20_000,
      'every delivery marked succeeded',
    );
    expect(statuses).toEqual([{ status: 'succeeded', n: 30 }]);

    second.child.kill('SIGTERM');
    const code = await second.exited;
    if (code !== 0) console.log(second.output().slice(-3000));
    expect(code).toBe(0);
  }, 60_000);
});
