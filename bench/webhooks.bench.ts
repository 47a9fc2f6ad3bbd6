/**
 * Webhook delivery: 1,000 booking.created events recorded through the app's DomainEvents (in
 * transactions of 50, as features do), fanned out to 3 endpoints on 127.0.0.1 whose receivers run in
 * a process of their own and verify every signature.
 *
 * 1. Live: the instance that records also dispatches and delivers. Lag = receive time − createdAt.
 * 2. Backlog: 1,000 events recorded while no worker runs, then one worker instance starts; how fast
 *    it drains them (dispatch + delivery, without the recording competing for the CPU).
 *
 *   npm run bench:build && node dist-bench/bench/webhooks.bench.js
 */
import { fork } from 'node:child_process';
import os from 'node:os';
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { TransactionHost } from '@app/database';
import { loadConfig, SystemClock, tenantScope } from '../libs/common/src/index.js';
import { createApp } from '../apps/api/src/bootstrap.js';
import { DomainEvents } from '../apps/api/src/modules/outbox/domain-events.service.js';
import type { SinkReport } from './support/webhook-sink.js';
import { BENCH_ENCRYPTION_KEY, machine, row, startBenchApp } from './support/harness.js';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 1000);
const BATCH = 50;
const ENDPOINTS = 3;
const JWT_SECRET = 'bench-secret-that-is-at-least-32-characters';

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

function booking(i: number): Record<string, unknown> {
  return {
    booking: {
      id: `bkg_bench${String(i).padStart(20, '0')}`,
      status: 'confirmed',
      startsAt: new Date(Date.UTC(2027, 2, 1, 9) + i * 1_800_000).toISOString(),
      endsAt: new Date(Date.UTC(2027, 2, 1, 9, 30) + i * 1_800_000).toISOString(),
      attendee: { email: `attendee${i}@example.com`, firstName: 'Bench', lastName: 'Attendee' },
      livemode: true,
    },
  };
}

/** Records `EVENTS` events in transactions of `BATCH`; returns their ids. */
async function record(app: NestFastifyApplication, organizationId: string, offset: number): Promise<string[]> {
  const events = app.get(DomainEvents);
  const scope = tenantScope({ type: 'api_key', organizationId, userId: '', memberId: null, role: null, livemode: true });
  const ids: string[] = [];
  for (let i = 0; i < EVENTS; i += BATCH) {
    await app.get(TransactionHost).transaction(async () => {
      for (let j = i; j < Math.min(EVENTS, i + BATCH); j++) {
        ids.push(await events.record(scope, { type: 'booking.created', data: booking(offset + j) }));
      }
    });
  }
  return ids;
}

async function main(): Promise<void> {
  const sink = fork(fileURLToPath(new URL('./support/webhook-sink.js', import.meta.url)));
  const ports = await new Promise<number[]>((resolve) => sink.once('message', (m: { ports: number[] }) => resolve(m.ports)));
  const report = (): Promise<SinkReport> =>
    new Promise((resolve) => {
      sink.once('message', (m: { report: SinkReport }) => resolve(m.report));
      sink.send({ report: true });
    });
  /** Waits until every event reached every endpoint; returns their arrivals. */
  const arrivalsOf = async (ids: string[]): Promise<[string, number, number][]> => {
    const wanted = new Set(ids);
    const deadline = Date.now() + 180_000;
    for (;;) {
      const arrivals = (await report()).arrivals.filter(([id]) => wanted.has(id));
      if (arrivals.length >= ids.length * ENDPOINTS || Date.now() > deadline) return arrivals;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  // The API instance records only; the worker instance is started for the backlog phase.
  const bench = await startBenchApp([], { RUN_WORKERS: 'false', JWT_SECRET });
  let worker: NestFastifyApplication | undefined;
  try {
    const register = await fetch(`${bench.url}/v1/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'bench@example.com', password: 'bench password', organizationName: 'Bench' }),
    });
    const owner = (await register.json()) as { accessToken: string; organization: { id: string } };
    const secrets: Record<string, string> = {};
    for (const port of ports) {
      const res = await fetch(`${bench.url}/v1/webhooks`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${owner.accessToken}` },
        body: JSON.stringify({ url: `http://127.0.0.1:${port}/hook`, events: ['booking.created'] }),
      });
      secrets[String(port)] = ((await res.json()) as { secret: string }).secret;
    }
    sink.send({ secrets });

    // Backlog first, while no worker runs anywhere.
    const backlog = await record(bench.app, owner.organization.id, 0);
    const workerConfig = loadConfig({
      NODE_ENV: 'test',
      DATABASE_URL: bench.databaseUrl,
      DATA_DIR: mkdtempSync(join(os.tmpdir(), 'sched-bench-worker-')),
      JWT_SECRET,
      ENCRYPTION_KEY: BENCH_ENCRYPTION_KEY,
      LOG_LEVEL: 'silent',
    });
    worker = await createApp({ config: workerConfig, clock: new SystemClock() });
    const drained = await arrivalsOf(backlog);
    // From the first arrival, so the instance's boot time is not counted.
    const drainTimes = drained.map(([, , at]) => at);
    const drainSeconds = (Math.max(...drainTimes) - Math.min(...drainTimes)) / 1000;

    // Live: the worker instance records, dispatches and delivers.
    const liveStarted = Date.now();
    const live = await record(worker, owner.organization.id, EVENTS);
    const recordSeconds = (Date.now() - liveStarted) / 1000;
    const arrived = await arrivalsOf(live);
    const liveSeconds = (Math.max(...arrived.map(([, , at]) => at)) - liveStarted) / 1000;
    const lags = arrived.map(([, lag]) => lag).sort((a, b) => a - b);
    const totals = await report();

    console.log(`${machine()}; load average ${os.loadavg()[0].toFixed(1)}; ${new Date().toISOString().slice(0, 10)}`);
    console.log(`${EVENTS} booking.created events per phase, transactions of ${BATCH}, ${ENDPOINTS} endpoints on 127.0.0.1\n`);
    console.log(row(['Phase', 'Events/s', 'Deliveries/s', 'Lag p50 (ms)', 'Lag p99 (ms)', 'Delivered']));
    console.log(row(['---', '---:', '---:', '---:', '---:', '---:']));
    console.log(
      row([
        `Live (recording ${(EVENTS / recordSeconds).toFixed(0)} events/s on the same instance)`,
        (EVENTS / liveSeconds).toFixed(0),
        ((EVENTS * ENDPOINTS) / liveSeconds).toFixed(0),
        percentile(lags, 50),
        percentile(lags, 99),
        `${arrived.length} / ${EVENTS * ENDPOINTS}`,
      ]),
    );
    console.log(
      row([
        'Backlog drain (worker started after recording; first → last arrival)',
        (EVENTS / drainSeconds).toFixed(0),
        ((EVENTS * ENDPOINTS) / drainSeconds).toFixed(0),
        '',
        '',
        `${drained.length} / ${EVENTS * ENDPOINTS}`,
      ]),
    );
    console.log(`\nRequests ${totals.requests}, duplicates ${totals.duplicates}, unverified signatures ${totals.unverified}`);
  } finally {
    await worker?.close();
    await bench.close();
    sink.kill();
  }
}

await main();
