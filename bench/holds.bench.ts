/**
 * Holds (issue 23): a hold then the booking through it, against plain bookings, in one run and one app.
 * 25 hosts, distinct free slots, 50 workers back to back for the maximum rate; then each kind offered at half
 * its maximum, evenly spaced. Goals: the pairs' throughput ≥ 0.8 of plain bookings' (a hold costs less than a
 * booking), and p99 of each request ≤ 50 ms at half the maximum rate.
 *
 *   npm run bench:holds
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { bookingTargets, type Target } from './support/booking-targets.js';
import { reportGoal } from './support/goals.js';
import { machine, row, startBenchApp } from './support/harness.js';

const run = promisify(execFile);
const CONNECTIONS = 50;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const PROCESSES = 2;
const HOSTS = 25;

interface PairResult {
  perSecond: number;
  operations: number;
  failures: number;
  hold: { p50: number; p99: number };
  booking: { p50: number; p99: number };
}

async function load(url: string, targets: Target[], firstSlot: string, mode: 'book' | 'pair', rate?: number): Promise<PairResult> {
  const parts = await Promise.all(
    Array.from({ length: PROCESSES }, async (_, index) => {
      const args = [
        url,
        JSON.stringify(targets),
        firstSlot,
        String(index),
        String(PROCESSES),
        String(CONNECTIONS / PROCESSES),
        String(SECONDS),
        mode,
      ];
      if (rate) args.push(String(Math.max(1, Math.round(rate / PROCESSES))));
      const { stdout } = await run(process.execPath, ['dist-bench/bench/support/pair-load.js', ...args], { maxBuffer: 16 << 20 });
      return JSON.parse(stdout) as PairResult;
    }),
  );
  const operations = parts.reduce((sum, part) => sum + part.operations, 0);
  const weighted = (pick: (part: PairResult) => number): number =>
    Math.round((parts.reduce((sum, part) => sum + pick(part) * part.operations, 0) / Math.max(1, operations)) * 10) / 10;
  return {
    perSecond: parts.reduce((sum, part) => sum + part.perSecond, 0),
    operations,
    failures: parts.reduce((sum, part) => sum + part.failures, 0),
    hold: { p50: weighted((part) => part.hold.p50), p99: Math.max(...parts.map((part) => part.hold.p99)) },
    booking: { p50: weighted((part) => part.booking.p50), p99: Math.max(...parts.map((part) => part.booking.p99)) },
  };
}

async function main(): Promise<void> {
  // As in the bookings bench: mail and webhook delivery run in the worker process, not measured here.
  const bench = await startBenchApp([], { RUN_WORKERS: 'false' });
  try {
    const targets = await bookingTargets(bench.url, HOSTS, 'holds');
    const plain = await load(bench.url, targets, '2027-01-04T00:00:00.000Z', 'book');
    const pairs = await load(bench.url, targets, '2027-04-05T00:00:00.000Z', 'pair');
    const plainHalf = await load(bench.url, targets, '2027-07-05T00:00:00.000Z', 'book', Math.round(plain.perSecond / 2));
    const pairsHalf = await load(bench.url, targets, '2027-10-04T00:00:00.000Z', 'pair', Math.round(pairs.perSecond / 2));

    console.log(`${machine()}; ${CONNECTIONS} workers, ${SECONDS} s each; ${new Date().toISOString().slice(0, 10)}\n`);
    console.log(row(['Load', 'Operations/s', 'Hold p50', 'Hold p99', 'Booking p50', 'Booking p99', 'Operations', 'Failures']));
    console.log(row(['---', '---:', '---:', '---:', '---:', '---:', '---:', '---:']));
    for (const [name, r] of [
      [`Plain bookings over ${HOSTS} hosts (the baseline)`, plain],
      ['A hold, then the booking through it', pairs],
      [`Plain bookings offered at ${Math.round(plain.perSecond / 2)}/s, evenly spaced`, plainHalf],
      [`Pairs offered at ${Math.round(pairs.perSecond / 2)}/s, evenly spaced`, pairsHalf],
    ] as const) {
      const holdColumns = r === plain || r === plainHalf ? ['', ''] : [r.hold.p50, r.hold.p99];
      console.log(row([name, r.perSecond.toFixed(0), ...holdColumns, r.booking.p50, r.booking.p99, r.operations, r.failures]));
    }
    console.log('');
    const ratio = pairs.perSecond / plain.perSecond;
    reportGoal({
      bench: 'holds',
      goal: 'a hold and its booking ≥ 0.8 of plain bookings’ throughput',
      result: `${ratio.toFixed(2)} (${pairs.perSecond.toFixed(0)} pairs/s against ${plain.perSecond.toFixed(0)} bookings/s)`,
      met: ratio >= 0.8,
    });
    const worst = Math.max(pairsHalf.hold.p99, pairsHalf.booking.p99);
    reportGoal({
      bench: 'holds',
      goal: 'p99 of a hold and of its booking ≤ 50 ms at half the maximum rate',
      result: `hold ${pairsHalf.hold.p99} ms, booking ${pairsHalf.booking.p99} ms`,
      met: worst <= 50,
    });
  } finally {
    await bench.close();
  }
}

await main();
