/**
 * Round trips to PostgreSQL per request of the hot paths (issue 40): a plain booking, a hold and the booking through
 * it, a warm GET /v1/availability and a warm GET /v1/public/availability. Counts every message the app's pool sends
 * (each waits for its answer: a round trip) and the statements in them, after a warm-up, one request at a time.
 * No goal: a count to set beside the CPU figures of the other benchmarks.
 *
 *   npm run bench:build && node dist-bench/bench/round-trips.bench.js    (BENCH_VERBOSE=1 prints each statement)
 */
import pg from 'pg';
import { post, bookingTargets } from './support/booking-targets.js';
import { machine, row, startBenchApp } from './support/harness.js';

const SAMPLES = 20;
const VERBOSE = process.env.BENCH_VERBOSE === '1';
const ORIGIN = 'https://shop.example';

interface Counted {
  roundTrips: number;
  statements: number;
  texts: string[];
}

const counted: Counted = { roundTrips: 0, statements: 0, texts: [] };
let counting = false;

/** Statements in one message: a simple-query batch holds several, separated by semicolons outside quotes. */
function statementsIn(text: string): number {
  let count = 0;
  let quoted: string | null = null;
  let content = false;
  for (const char of text) {
    if (quoted) {
      if (char === quoted) quoted = null;
      continue;
    }
    if (char === "'" || char === '"') quoted = char;
    if (char === ';') {
      if (content) count++;
      content = false;
    } else if (!/\s/.test(char)) content = true;
  }
  return count + (content ? 1 : 0);
}

// Every pooled client of the app is a pg.Client: its query() is one message and one answer.
const original = pg.Client.prototype.query;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  if (counting) {
    const first = args[0] as string | { text?: string; name?: string };
    const text = typeof first === 'string' ? first : (first?.text ?? first?.name ?? '');
    counted.roundTrips++;
    counted.statements += Math.max(1, statementsIn(text));
    counted.texts.push(text.replace(/\s+/g, ' ').slice(0, 160));
  }
  return (original as (...a: unknown[]) => unknown).apply(this, args);
} as typeof pg.Client.prototype.query;

async function measure(name: string, operation: (i: number) => Promise<void>): Promise<(string | number)[]> {
  for (let i = 0; i < 3; i++) await operation(-1 - i);
  counted.roundTrips = 0;
  counted.statements = 0;
  counted.texts = [];
  counting = true;
  for (let i = 0; i < SAMPLES; i++) await operation(i);
  counting = false;
  if (VERBOSE) {
    console.log(`\n${name}: the last sample's messages`);
    for (const text of counted.texts.slice(-Math.round(counted.texts.length / SAMPLES))) console.log(`  ${text}`);
  }
  return [name, (counted.roundTrips / SAMPLES).toFixed(1), (counted.statements / SAMPLES).toFixed(1)];
}

async function request(url: string, init: RequestInit): Promise<Record<string, unknown>> {
  const res = await fetch(url, init);
  const body = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${url}: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

async function main(): Promise<void> {
  const bench = await startBenchApp([], { RUN_WORKERS: 'false' });
  try {
    const [target] = await bookingTargets(bench.url, 1, 'trips');
    const login = (await post(bench.url, '/v1/auth/login', { email: 'trips0@example.com', password: 'bench password' }, '')) as {
      accessToken: string;
    };
    const publishable = (
      await post(bench.url, '/v1/api-keys', { name: 'page', kind: 'publishable', allowedOrigins: [ORIGIN] }, login.accessToken)
    ).apiKey as string;
    const json = { 'content-type': 'application/json', authorization: `ApiKey ${target.apiKey}` };
    let slot = Date.parse('2027-01-04T00:00:00Z');
    const next = (): string => new Date((slot += 5 * 60_000)).toISOString();
    const book = (extra: Record<string, unknown> = {}) =>
      request(`${bench.url}/v1/bookings`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({
          eventTypeId: target.eventTypeId,
          startTime: next(),
          timezone: 'UTC',
          attendee: { email: 'ada@example.com' },
          ...extra,
        }),
      });
    const range = `eventTypeId=${target.eventTypeId}&start=2027-02-01&end=2027-02-28&timezone=Europe/Berlin`;

    const rows = [
      await measure('POST /v1/bookings', async () => {
        await book();
      }),
      await measure('POST /v1/holds, then POST /v1/bookings with its holdId (the pair)', async () => {
        const startTime = next();
        const held = (await request(`${bench.url}/v1/holds`, {
          method: 'POST',
          headers: json,
          body: JSON.stringify({ eventTypeId: target.eventTypeId, startTime, timezone: 'UTC' }),
        })) as { hold: { id: string } };
        slot -= 5 * 60_000;
        await book({ holdId: held.hold.id });
      }),
      await measure('GET /v1/availability, warm', async () => {
        await request(`${bench.url}/v1/availability?${range}`, { headers: { authorization: `ApiKey ${target.apiKey}` } });
      }),
      await measure('GET /v1/public/availability, warm', async () => {
        await request(`${bench.url}/v1/public/availability?${range}`, {
          headers: { authorization: `ApiKey ${publishable}`, origin: ORIGIN },
        });
      }),
    ];
    console.log(`${machine()}; ${SAMPLES} requests each after 3 to warm up, one at a time; ${new Date().toISOString().slice(0, 10)}\n`);
    console.log(row(['Request', 'Round trips to PostgreSQL', 'Statements']));
    console.log(row(['---', '---:', '---:']));
    for (const cells of rows) console.log(row(cells));
  } finally {
    await bench.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
