/**
 * One autocannon process posting bookings on distinct free slots. Requests rotate over the given
 * (API key, event type) targets; process `index` of `processes` takes every processes-th 5-minute
 * slot of each target from `firstSlot`, so no two requests ever want the same host and time (with
 * BENCH_SEATS_PER_START, that many consecutive bookings of a target share one start: its seats).
 * With a rate, offers that many requests per second, evenly spaced, whatever the answers take (open
 * loop; autocannon's own `overallRate` resets a per-connection quota every second, so every connection
 * fires at once at each second's start and the latency measured is a burst's). Latency counts from the
 * moment a request was due, so a late send is not hidden. With `autocannon` as the last argument, the rate
 * goes through autocannon's overallRate instead. Prints autocannon's result shape as JSON.
 * Started by bookings.bench.ts.
 */
import { Agent, request } from 'node:http';
import autocannon from 'autocannon';

const [url, targetsJson, firstSlot, index, processes, connections, seconds, rate, pacing] = process.argv.slice(2);
const targets = JSON.parse(targetsJson) as { apiKey: string; eventTypeId: string }[];
const SLOT_MS = 5 * 60_000;
// Bookings per start: 1, or a seated event type's seats (every SEATS-th booking of a target moves to the next slot).
const SEATS = Number(process.env.BENCH_SEATS_PER_START ?? 1);
let sent = 0;

/** The next booking: its API key and body. */
function next(): { authorization: string; body: string } {
  const n = sent++;
  const target = targets[n % targets.length];
  const slot = Date.parse(firstSlot) + Math.floor((Math.floor(n / targets.length) * Number(processes) + Number(index)) / SEATS) * SLOT_MS;
  return {
    authorization: `ApiKey ${target.apiKey}`,
    body: JSON.stringify({
      eventTypeId: target.eventTypeId,
      startTime: new Date(slot).toISOString(),
      timezone: 'UTC',
      attendee: { email: `load-${index}-${n}@example.com` },
    }),
  };
}

async function paced(perSecond: number): Promise<unknown> {
  const agent = new Agent({ keepAlive: true, maxSockets: Number(connections) });
  const target = new URL(`${url}/v1/bookings`);
  const total = Math.round(perSecond * Number(seconds));
  const latencies: number[] = [];
  let non2xx = 0;
  let errors = 0;
  const start = performance.now() + 50;
  const one = (dueAt: number): Promise<void> =>
    new Promise((resolve) => {
      const { authorization, body } = next();
      const req = request(
        target,
        {
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/json', authorization, 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          res.resume();
          res.on('end', () => {
            if (res.statusCode! < 200 || res.statusCode! >= 300) non2xx++;
            latencies.push(performance.now() - dueAt);
            resolve();
          });
        },
      );
      req.on('error', () => {
        errors++;
        resolve();
      });
      req.end(body);
    });
  const pending: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const dueAt = start + (i * 1000) / perSecond;
    const wait = dueAt - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    pending.push(one(dueAt));
  }
  await Promise.all(pending);
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (q: number): number => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] * 10) / 10;
  return { requests: { average: total / Number(seconds), total }, latency: { p50: at(0.5), p99: at(0.99) }, non2xx, errors };
}

const result =
  rate && pacing !== 'autocannon'
    ? await paced(Number(rate))
    : await autocannon({
        url: `${url}/v1/bookings`,
        connections: Number(connections),
        duration: Number(seconds),
        // `autocannon` pacing: its own overallRate, for comparison (a quota per connection per second).
        ...(rate ? { overallRate: Number(rate) } : {}),
        requests: [
          {
            method: 'POST',
            setupRequest: (req) => {
              const { authorization, body } = next();
              return { ...req, headers: { 'content-type': 'application/json', authorization }, body };
            },
          },
        ],
      });

process.stdout.write(JSON.stringify(result));
