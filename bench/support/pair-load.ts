/**
 * One load process for holds.bench.ts: `book` posts plain bookings, `pair` posts a hold then the booking
 * through it (POST /v1/holds, then POST /v1/bookings with holdId), each on distinct free 5-minute slots that
 * rotate over the (API key, event type) targets, as booking-load.ts does. Without a rate, `connections`
 * workers run back to back for `seconds` (the maximum rate); with one, operations start evenly spaced (open
 * loop) and each request's latency counts from when its operation was due. Prints operations per second and
 * p50/p99 per request kind as JSON.
 */
import { Agent, request } from 'node:http';

const [url, targetsJson, firstSlot, index, processes, connections, seconds, mode, rate] = process.argv.slice(2);
const targets = JSON.parse(targetsJson) as { apiKey: string; eventTypeId: string }[];
const SLOT_MS = 5 * 60_000;
const agent = new Agent({ keepAlive: true, maxSockets: Number(connections) });
let next = 0;
let failures = 0;
const latencies: Record<'hold' | 'booking', number[]> = { hold: [], booking: [] };

function post(path: string, authorization: string, body: unknown): Promise<{ status: number; body: string }> {
  const text = JSON.stringify(body);
  return new Promise((resolve) => {
    const req = request(
      new URL(`${url}${path}`),
      { method: 'POST', agent, headers: { 'content-type': 'application/json', authorization, 'content-length': Buffer.byteLength(text) } },
      (res) => {
        let data = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (data += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: data }));
      },
    );
    req.on('error', () => resolve({ status: 0, body: '' }));
    req.end(text);
  });
}

async function operation(dueAt: number): Promise<void> {
  const n = next++;
  const target = targets[n % targets.length];
  const slot = Date.parse(firstSlot) + (Math.floor(n / targets.length) * Number(processes) + Number(index)) * SLOT_MS;
  const authorization = `ApiKey ${target.apiKey}`;
  const startTime = new Date(slot).toISOString();
  let holdId: string | undefined;
  if (mode === 'pair') {
    const held = await post('/v1/holds', authorization, { eventTypeId: target.eventTypeId, startTime, timezone: 'UTC' });
    latencies.hold.push(performance.now() - dueAt);
    if (held.status !== 201) {
      failures++;
      return;
    }
    holdId = (JSON.parse(held.body) as { hold: { id: string } }).hold.id;
  }
  const bookedAt = performance.now();
  const booked = await post('/v1/bookings', authorization, {
    eventTypeId: target.eventTypeId,
    startTime,
    timezone: 'UTC',
    attendee: { email: `pair-${index}-${n}@example.com` },
    ...(holdId ? { holdId } : {}),
  });
  latencies.booking.push(performance.now() - (mode === 'pair' ? bookedAt : dueAt));
  if (booked.status !== 201) failures++;
}

const started = performance.now();
const until = started + Number(seconds) * 1000;
let operations = 0;
if (rate) {
  const perSecond = Number(rate);
  const total = Math.round(perSecond * Number(seconds));
  const pending: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const dueAt = started + 50 + (i * 1000) / perSecond;
    const wait = dueAt - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    pending.push(operation(dueAt));
  }
  await Promise.all(pending);
  operations = total;
} else {
  await Promise.all(
    Array.from({ length: Number(connections) }, async () => {
      while (performance.now() < until) {
        await operation(performance.now());
        operations++;
      }
    }),
  );
}
const elapsed = (performance.now() - started) / 1000;
agent.destroy();
const at = (values: number[], q: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? 0 : Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] * 10) / 10;
};
process.stdout.write(
  JSON.stringify({
    operations,
    perSecond: rate ? Number(rate) : operations / elapsed,
    failures,
    hold: { p50: at(latencies.hold, 0.5), p99: at(latencies.hold, 0.99) },
    booking: { p50: at(latencies.booking, 0.5), p99: at(latencies.booking, 0.99) },
  }),
);
