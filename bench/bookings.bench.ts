/**
 * Booking throughput: POST /v1/bookings on distinct free slots with 50 connections, and in the same
 * run pgbench doing single-row inserts into a table with the same exclusion constraint.
 * Goals (issue 40): whole-machine CPU per booking ≤ 16× a pgbench insert's, p99 ≤ 50 ms at half the maximum rate.
 *
 *   npm run bench:bookings
 */
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { bookingTargets, CONNECTIONS, loadBookings, SECONDS } from './support/booking-targets.js';
import { reportGoal } from './support/goals.js';
import { machine, machineBusyMs, processCpuMs, row, startBenchApp } from './support/harness.js';

const run = promisify(execFile);
const HOSTS = 25;

/** pgbench: single-row inserts into a table with the bookings' exclusion constraint, distinct ranges. */
async function pgbench(databaseUrl: string): Promise<{ tps: number; p99?: number; latencyAvg: number }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query(`CREATE TABLE bench_pgbench_hosts (
      host_user_id text NOT NULL, livemode boolean NOT NULL, status text NOT NULL, during tstzrange NOT NULL,
      EXCLUDE USING gist (host_user_id WITH =, livemode WITH =, during WITH &&) WHERE (status IN ('confirmed', 'pending')))`);
  await client.query('CREATE SEQUENCE bench_pgbench_slot');
  await client.end();
  const script = join(tmpdir(), `pgbench-bookings-${process.pid}.sql`);
  writeFileSync(
    script,
    `INSERT INTO bench_pgbench_hosts (host_user_id, livemode, status, during)
     SELECT 'usr_bench', true, 'confirmed', tstzrange(t, t + interval '5 minutes')
       FROM (SELECT timestamptz '2027-01-04' + nextval('bench_pgbench_slot') * interval '5 minutes' AS t) s;\n`,
  );
  const { stdout } = await run('pgbench', ['-n', '-c', String(CONNECTIONS), '-j', '2', '-T', String(SECONDS), '-f', script, databaseUrl], {
    maxBuffer: 16 * 1024 * 1024,
  });
  const tps = Number(/tps = ([\d.]+)/.exec(stdout)?.[1]);
  const latencyAvg = Number(/latency average = ([\d.]+) ms/.exec(stdout)?.[1]);
  return { tps, latencyAvg };
}

async function main(): Promise<void> {
  // Mail and webhook delivery run in the worker process in this measurement (RUN_WORKERS=false):
  // what is measured is the API's booking transaction, outbox writes included.
  const bench = await startBenchApp([], { RUN_WORKERS: 'false' });
  try {
    const targets = await bookingTargets(bench.url, HOSTS);
    // Machine CPU per operation (Node, PostgreSQL and the load generators together, as pgbench with its client).
    let busy = machineBusyMs();
    const processes = processCpuMs();
    const spread = await loadBookings(bench.url, targets);
    const spreadCpuMs = (machineBusyMs() - busy) / spread.requests;
    const after = processCpuMs();
    const apiCpuMs = (after.self - processes.self) / spread.requests;
    const loadCpuMs = (after.children - processes.children) / spread.requests;
    // Half the measured maximum, offered at a steady rate: the latency a booking sees when the service is not saturated.
    const halfRate = Math.round(spread.requestsPerSecond / 2);
    // Requests evenly spaced (open loop); and, for comparison, through autocannon's overallRate, whose
    // per-connection quota resets each second so all connections fire together at each second's start.
    const half = await loadBookings(bench.url, targets, '2027-06-07T00:00:00.000Z', halfRate);
    const halfBursts = await loadBookings(bench.url, targets, '2027-09-06T00:00:00.000Z', halfRate, 'autocannon');
    // Later slots of the first host, after the spread run's.
    const oneHost = await loadBookings(bench.url, [targets[0]], '2028-01-03T00:00:00.000Z');
    busy = machineBusyMs();
    const baseline = await pgbench(bench.databaseUrl);
    const pgbenchCpuMs = (machineBusyMs() - busy) / (baseline.tps * SECONDS);

    console.log(`${machine()}; ${CONNECTIONS} connections, ${SECONDS} s each; ${new Date().toISOString().slice(0, 10)}\n`);
    console.log(row(['Load', 'Per second', 'p50 (ms)', 'p99 (ms)', 'Requests', 'Non-2xx', 'Errors']));
    console.log(row(['---', '---:', '---:', '---:', '---:', '---:', '---:']));
    for (const [name, r] of [
      [`POST /v1/bookings, distinct free slots over ${HOSTS} hosts`, spread],
      [`… offered at ${halfRate}/s (half of that), evenly spaced`, half],
      [`… offered at ${halfRate}/s through autocannon's overallRate (bursts at each second)`, halfBursts],
      ['POST /v1/bookings, distinct free slots of one host', oneHost],
    ] as const) {
      console.log(row([name, r.requestsPerSecond.toFixed(0), r.p50, r.p99, r.requests, r.non2xx, r.errors]));
    }
    console.log(
      row([
        'pgbench: single-row insert under the same exclusion constraint',
        baseline.tps.toFixed(0),
        `avg ${baseline.latencyAvg}`,
        '',
        '',
        '',
        '',
      ]),
    );
    const ratio = spread.requestsPerSecond / baseline.tps;
    console.log('');
    console.log(
      `Machine CPU per operation: ${spreadCpuMs.toFixed(2)} ms per booking, ${pgbenchCpuMs.toFixed(3)} ms per pgbench insert ` +
        `(the most the ratio can be while the machine's cores are all busy: ${(pgbenchCpuMs / spreadCpuMs).toFixed(3)}); of a booking's, ` +
        `the API process ${apiCpuMs.toFixed(2)} ms, the load generators ${loadCpuMs.toFixed(2)} ms, PostgreSQL and the rest ` +
        `${(spreadCpuMs - apiCpuMs - loadCpuMs).toFixed(2)} ms`,
    );
    console.log('');
    const times = spreadCpuMs / pgbenchCpuMs;
    reportGoal({
      bench: 'bookings',
      goal: `POST /v1/bookings over ${HOSTS} hosts ≤ 16× a pgbench insert's machine CPU`,
      result:
        `${times.toFixed(1)}× (${spreadCpuMs.toFixed(2)} against ${pgbenchCpuMs.toFixed(3)} ms; ` +
        `${spread.requestsPerSecond.toFixed(0)}/s against ${baseline.tps.toFixed(0)}/s, ${ratio.toFixed(3)})`,
      met: times <= 16,
    });
    reportGoal({
      bench: 'bookings',
      goal: 'p99 ≤ 50 ms at half the maximum rate',
      result: `${half.p99} ms evenly spaced (${halfBursts.p99} ms in autocannon's per-second bursts)`,
      met: half.p99 <= 50,
    });
  } finally {
    await bench.close();
  }
}

await main();
