import { REQUEST_LIMIT_MS, runFailoverDrill } from './support/failover-drill.js';
import { compiledServer } from './support/process.js';

/*
 * Contract § 19 "High availability": the failover drill (npm run drill:failover) with a short load. A real Patroni
 * cluster from deploy/ha/ (etcd, two PostgreSQL 15 nodes, HAProxy), two API instances and a worker process; the
 * primary's postmaster killed with SIGKILL, the old primary rejoining, a switchover back, all under booking load.
 */
describe('failover drill: a PostgreSQL failover under booking load', () => {
  it('loses nothing acknowledged, doubles nothing, sends every event, mail and reminder, and serves again within 5 s', async () => {
    const { worker } = await compiledServer();
    const report = await runFailoverDrill({
      worker: { command: process.execPath, args: [worker] },
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
