/**
 * What tracing costs a request (docs/contributing/performance.md, "Tracing and metrics"): the API process's own CPU time per request (user +
 * system, autocannon runs in processes of its own), with tracing off and on, each in a process of its own (the SDK is
 * process-wide), in turns. CPU per request moves much less than requests per second when other work shares the
 * machine. Tracing on exports every span to a stand-in collector (support/traced.ts).
 *
 *   npm run bench:build && node dist-bench/bench/tracing.bench.js
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { DataSource } from 'typeorm';
import { BaselineModule, load, machine, row, startBenchApp } from './support/harness.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const CONNECTIONS = 10;
const ROUNDS = 2;

interface Measure {
  route: string;
  requests: number;
  requestsPerSecond: number;
  cpuMicrosPerRequest: number;
}

/** One process's measure of both routes. */
async function measure(): Promise<void> {
  const bench = await startBenchApp([BaselineModule]);
  try {
    const json = { 'content-type': 'application/json' };
    const register = await fetch(`${bench.url}/v1/auth/register`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ email: 'bench@example.com', password: 'bench password', organizationName: 'Bench' }),
    });
    const owner = (await register.json()) as { accessToken: string; organization: { id: string } };
    const created = await fetch(`${bench.url}/v1/api-keys`, {
      method: 'POST',
      headers: { ...json, authorization: `Bearer ${owner.accessToken}` },
      body: JSON.stringify({ name: 'bench', rateLimitPerMinute: 10000 }),
    });
    const { apiKey } = (await created.json()) as { apiKey: string };
    await bench.app.get(DataSource).query(`UPDATE api_keys SET rate_limit_per_minute = 10000000`);
    const routes: [string, string, Record<string, string>][] = [
      ['Baseline: one primary-key lookup (public route)', `${bench.url}/v1/bench/baseline/${owner.organization.id}`, {}],
      ['GET /v1/users/me with an API key', `${bench.url}/v1/users/me`, { authorization: `ApiKey ${apiKey}` }],
    ];
    for (const [, url, headers] of routes) await load(url, { connections: CONNECTIONS, seconds: 2, headers });
    for (const [route, url, headers] of routes) {
      const before = process.cpuUsage();
      const result = await load(url, { connections: CONNECTIONS, seconds: SECONDS, headers });
      const cpu = process.cpuUsage(before);
      const measured: Measure = {
        route,
        requests: result.requests,
        requestsPerSecond: result.requestsPerSecond,
        cpuMicrosPerRequest: (cpu.user + cpu.system) / Math.max(1, result.requests),
      };
      console.log(`MEASURE ${JSON.stringify(measured)}`);
    }
  } finally {
    await bench.close();
  }
}

async function run(traced: boolean): Promise<Measure[]> {
  const self = fileURLToPath(import.meta.url);
  const preload = fileURLToPath(new URL('./support/traced.js', import.meta.url));
  const args = [...(traced ? ['--import', preload] : []), self, '--measure'];
  const { stdout } = await promisify(execFile)(process.execPath, args, { maxBuffer: 64 * 1024 * 1024, timeout: 300_000 });
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('MEASURE '))
    .map((line) => JSON.parse(line.slice('MEASURE '.length)) as Measure);
}

async function main(): Promise<void> {
  const off: Measure[] = [];
  const on: Measure[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    off.push(...(await run(false)));
    on.push(...(await run(true)));
  }
  const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  console.log(`${machine()}; ${CONNECTIONS} connections, ${SECONDS} s per route, ${ROUNDS} processes each way in turns\n`);
  console.log(row(['Route', 'CPU µs/request off', 'on', 'added', 'Requests/s off', 'on']));
  console.log(row(['---', '---:', '---:', '---:', '---:', '---:']));
  for (const route of [...new Set(off.map((m) => m.route))]) {
    const cpuOff = median(off.filter((m) => m.route === route).map((m) => m.cpuMicrosPerRequest));
    const cpuOn = median(on.filter((m) => m.route === route).map((m) => m.cpuMicrosPerRequest));
    const rpsOff = median(off.filter((m) => m.route === route).map((m) => m.requestsPerSecond));
    const rpsOn = median(on.filter((m) => m.route === route).map((m) => m.requestsPerSecond));
    console.log(row([route, cpuOff.toFixed(0), cpuOn.toFixed(0), `+${(cpuOn - cpuOff).toFixed(0)}`, rpsOff.toFixed(0), rpsOn.toFixed(0)]));
  }
}

if (process.argv.includes('--measure')) await measure();
else await main();
