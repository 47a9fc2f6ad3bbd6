/**
 * The failover drill at full length (issue 36, contract § 19 "High availability", deploy/ha/README.md):
 *
 *   npm run drill:failover
 *
 * Installs Debian's patroni, etcd-server and haproxy when missing (as root), starts etcd, two PostgreSQL 15 nodes under
 * Patroni and HAProxy on loopback ports, two API instances and a worker process against HAProxy, a webhook receiver and
 * an SMTP capture; runs booking load from two clients, kills the primary's postmaster with SIGKILL, waits for the old
 * primary to rejoin, switches back, all under load; prints one table and exits 1 when a promise failed.
 * DRILL_WARM_MS, DRILL_MID_MS, DRILL_TAIL_MS and DRILL_INTERVAL_MS change its length and rate; DRILL_VERBOSE=1 logs
 * each step.
 */
import { cpus, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runFailoverDrill } from '../support/failover-drill.js';

const BUILT = resolve(fileURLToPath(new URL('.', import.meta.url)), '..', '..');
const number = (name: string, fallback: number): number => Number(process.env[name] ?? fallback);

const report = await runFailoverDrill({
  worker: { command: process.execPath, args: [join(BUILT, 'apps/worker/src/main.js')] },
  warmMs: number('DRILL_WARM_MS', 10_000),
  midMs: number('DRILL_MID_MS', 10_000),
  tailMs: number('DRILL_TAIL_MS', 10_000),
  intervalMs: number('DRILL_INTERVAL_MS', 100),
  log: (line) => process.stderr.write(process.env.DRILL_VERBOSE || !line.includes('\n') ? `${line}\n` : ''),
});
const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
process.stdout.write(`Failover drill, ${new Date().toISOString()}, ${machine}\n\n${report.table}\n\n${JSON.stringify(report.figures)}\n`);
process.exit(report.failures.length ? 1 : 0);
