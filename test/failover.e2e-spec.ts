import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { REQUEST_LIMIT_MS, removeDirectory, runFailoverDrill } from './support/failover-drill.js';
import { compileEntries } from './support/process.js';

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');

/*
 * Contract § 19 "High availability": the failover drill (npm run drill:failover) with a short load. A real Patroni
 * cluster from deploy/ha/ (etcd, two PostgreSQL 15 nodes, HAProxy), two API instances and a worker process; the
 * primary's postmaster killed with SIGKILL, the old primary rejoining, a switchover back, all under booking load.
 */
describe('failover drill: a PostgreSQL failover under booking load', () => {
  const buildDir = join(ROOT, '.data', `drill-build-${process.pid}`);

  afterAll(() => removeDirectory(buildDir));

  it('loses nothing acknowledged, doubles nothing, sends every event, mail and reminder, and serves again within 5 s', async () => {
    await compileEntries(buildDir, ['apps/worker/src/main.ts']);
    const report = await runFailoverDrill({
      worker: { command: process.execPath, args: [join(buildDir, 'apps/worker/src/main.js')] },
      warmMs: 2000,
      midMs: 1000,
      tailMs: 2000,
      intervalMs: 150,
      log: process.env.DRILL_LOG ? (line) => process.stdout.write(`${line}\n`) : undefined,
    });
    process.stdout.write(`failover drill:\n${report.table}\n${JSON.stringify(report.figures)}\n`);
    expect(report.failures).toEqual([]);
    expect(report.figures.slowestMs).toBeLessThanOrEqual(REQUEST_LIMIT_MS);
  }, 240_000);
});
