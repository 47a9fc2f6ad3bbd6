/**
 * Seats and recurring series (issue 25), in one run and one app.
 * 1. Seated bookings of one start (1,000 seats, every booking of a start until it is full, then the next start)
 *    at the maximum rate, against plain bookings of distinct slots of one host: both serialize on the one host's
 *    lock, so the seats' count check must not cost more than half of a booking. Goal: ≥ 0.5 of the plain rate.
 * 2. A 52-occurrence weekly series in one request, against single bookings, both one at a time on idle hosts.
 *    Goal: the series' median ≤ 10 × a single booking's median.
 *
 *   npm run bench:seats
 */
import { bookingTargets, CONNECTIONS, loadBookings, SECONDS, type Target } from './support/booking-targets.js';
import { reportGoal } from './support/goals.js';
import { machine, row, startBenchApp } from './support/harness.js';

const SEATS = 1000;
const SERIES = 52;
const SAMPLES = 30;

async function call(url: string, method: string, path: string, apiKey: string, body: unknown): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', authorization: `ApiKey ${apiKey}` },
    body: JSON.stringify(body),
  });
  await res.arrayBuffer();
  return { status: res.status, ms: performance.now() - started };
}

async function patchEventType(url: string, target: Target, body: Record<string, unknown>): Promise<void> {
  const { status } = await call(url, 'PATCH', `/v1/event-types/${target.eventTypeId}`, target.apiKey, body);
  if (status !== 200) throw new Error(`event type patch: ${status}`);
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.floor(sorted.length / 2)] * 10) / 10;
};

/** `SAMPLES` requests one after the other, each at the next free time of the target; their latencies. */
async function sequential(
  url: string,
  target: Target,
  first: string,
  extra: Record<string, unknown>,
  stepMinutes: number,
): Promise<number[]> {
  const latencies: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const startTime = new Date(Date.parse(first) + i * stepMinutes * 60_000).toISOString();
    const body = { eventTypeId: target.eventTypeId, startTime, timezone: 'UTC', attendee: { email: `seq-${i}@example.com` }, ...extra };
    const { status, ms } = await call(url, 'POST', '/v1/bookings', target.apiKey, body);
    if (status !== 201) throw new Error(`sequential booking: ${status}`);
    latencies.push(ms);
  }
  return latencies;
}

async function main(): Promise<void> {
  // As in the bookings bench: mail and webhook delivery run in the worker process, not measured here.
  const bench = await startBenchApp([], { RUN_WORKERS: 'false' });
  try {
    const [plainHost, seatedHost, singleHost, seriesHost] = await bookingTargets(bench.url, 4, 'seats');
    await patchEventType(bench.url, seatedHost, { seatsPerSlot: SEATS });
    await patchEventType(bench.url, seriesHost, { recurrence: { frequency: 'weekly', interval: 1, maxCount: SERIES } });

    const plain = await loadBookings(bench.url, [plainHost]);
    const seated = await loadBookings(bench.url, [seatedHost], undefined, undefined, 'even', SEATS);
    // Single bookings and series on their own hosts: a series' 52 weeks start 5 minutes after the one before.
    await sequential(bench.url, singleHost, '2027-01-03T00:00:00.000Z', {}, 5); // warm-up
    const singles = await sequential(bench.url, singleHost, '2027-01-04T00:00:00.000Z', {}, 5);
    await sequential(bench.url, seriesHost, '2027-01-03T00:00:00.000Z', { recurrenceCount: SERIES }, 5);
    const series = await sequential(bench.url, seriesHost, '2027-01-03T06:00:00.000Z', { recurrenceCount: SERIES }, 5);

    console.log(`${machine()}; ${CONNECTIONS} connections, ${SECONDS} s each; ${new Date().toISOString().slice(0, 10)}\n`);
    console.log(row(['Load', 'Per second', 'p50 (ms)', 'p99 (ms)', 'Requests', 'Non-2xx', 'Errors']));
    console.log(row(['---', '---:', '---:', '---:', '---:', '---:', '---:']));
    for (const [name, r] of [
      ['Plain bookings, distinct slots of one host (the baseline)', plain],
      [`Seated bookings, ${SEATS} per start of one host`, seated],
    ] as const) {
      console.log(row([name, r.requestsPerSecond.toFixed(0), r.p50, r.p99, r.requests, r.non2xx, r.errors]));
    }
    console.log('');
    console.log(row(['One at a time', 'Median (ms)', 'Slowest (ms)', 'Requests']));
    console.log(row(['---', '---:', '---:', '---:']));
    console.log(row(['A single booking', median(singles), Math.round(Math.max(...singles)), SAMPLES]));
    console.log(row([`A weekly series of ${SERIES} occurrences`, median(series), Math.round(Math.max(...series)), SAMPLES]));
    console.log('');

    const ratio = seated.requestsPerSecond / plain.requestsPerSecond;
    reportGoal({
      bench: 'seats',
      goal: `seated bookings of one start (${SEATS} seats) ≥ 0.5 of one host's plain bookings`,
      result: `${ratio.toFixed(2)} (${seated.requestsPerSecond.toFixed(0)}/s against ${plain.requestsPerSecond.toFixed(0)}/s; ${seated.non2xx} refused)`,
      met: ratio >= 0.5 && seated.non2xx === 0 && plain.non2xx === 0,
    });
    const times = median(series) / median(singles);
    reportGoal({
      bench: 'seats',
      goal: `a ${SERIES}-occurrence series ≤ 10 × a single booking's median`,
      result: `${times.toFixed(1)} × (${median(series)} ms against ${median(singles)} ms)`,
      met: times <= 10,
    });
  } finally {
    await bench.close();
  }
}

await main();
