/**
 * 1,000 ICS connections synced by one instance against a local feed server (issue 14: report connections
 * per second). Prints a markdown table for docs/contributing/performance.md:
 *
 *   npm run bench:calendar-sync
 *
 * Seeds 50 members with 20 connections each (the per-member maximum), every one a distinct URL of a local
 * HTTP server answering a feed of 60 events (10 of them weekly series) with an ETag, then makes all of
 * them due at once and times the calendar-sync worker until every one has synced: a first round that
 * reads and stores every feed, and a second answered 304 Not Modified. Baseline in the same run: the
 * same 1,000 GETs by a plain loop with as many in flight as the worker claims (what fetching alone costs).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DataSource } from 'typeorm';
import { newId } from '../libs/common/src/index.js';
import { CalendarSecrets } from '../apps/api/src/modules/calendars/calendar-secrets.service.js';
import { machine, row, startBenchApp, type BenchApp } from './support/harness.js';

const MEMBERS = 50;
const PER_MEMBER = 20;
const CONNECTIONS = MEMBERS * PER_MEMBER;
const IN_FLIGHT = 4;

function feed(seed: number): string {
  const lines = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//bench//EN'];
  const first = Date.now() + 86_400_000;
  for (let i = 0; i < 60; i++) {
    const start = new Date(first + ((seed * 7 + i * 13) % 300) * 86_400_000 + (9 + (i % 8)) * 3_600_000);
    const stamp = start.toISOString().replace(/[-:]/g, '').slice(0, 15);
    lines.push(
      'BEGIN:VEVENT',
      `UID:e${seed}-${i}@bench`,
      'DTSTAMP:20270101T000000Z',
      `DTSTART;TZID=Europe/Berlin:${stamp}`,
      'DURATION:PT45M',
    );
    if (i < 10) lines.push('RRULE:FREQ=WEEKLY;COUNT=30');
    lines.push('SUMMARY:Meeting', 'END:VEVENT');
  }
  return [...lines, 'END:VCALENDAR', ''].join('\r\n');
}

async function feedServer(): Promise<{ server: Server; url: (n: number) => string; requests: () => number }> {
  let requests = 0;
  const bodies = new Map<string, string>();
  const server = createServer((req, res) => {
    requests++;
    const n = Number((req.url ?? '').match(/\/feed\/(\d+)\.ics/)?.[1] ?? -1);
    if (n < 0) return void res.writeHead(404).end();
    const etag = `"v${n}"`;
    if (req.headers['if-none-match'] === etag) return void res.writeHead(304, { etag }).end();
    const body = bodies.get(etag) ?? feed(n);
    bodies.set(etag, body);
    res.writeHead(200, { 'content-type': 'text/calendar', etag }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return { server, url: (n) => `http://127.0.0.1:${port}/feed/${n}.ics?token=secret`, requests: () => requests };
}

async function seed(bench: BenchApp, url: (n: number) => string): Promise<void> {
  const register = await fetch(`${bench.url}/v1/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'sync-owner@example.com', password: 'bench password', organizationName: 'Sync' }),
  });
  const owner = (await register.json()) as { organization: { id: string } };
  const organizationId = owner.organization.id;
  const dataSource = bench.app.get(DataSource);
  const secrets = bench.app.get(CalendarSecrets);
  for (let m = 0; m < MEMBERS; m++) {
    const userId = newId('usr');
    const memberId = newId('mem');
    await dataSource.query(
      `INSERT INTO users (id, email, password_hash, timezone, created_at, updated_at) VALUES ($1, $2, 'x', 'Europe/Berlin', now(), now())`,
      [userId, `sync-${m}@example.com`],
    );
    await dataSource.query(
      `INSERT INTO members (id, organization_id, user_id, email, role, status, joined_at, created_at, updated_at)
       VALUES ($1, $2, $3, $4, 'member', 'active', now(), now(), now())`,
      [memberId, organizationId, userId, `sync-${m}@example.com`],
    );
    for (let c = 0; c < PER_MEMBER; c++) {
      const id = newId('cal');
      const n = m * PER_MEMBER + c;
      await dataSource.query(
        `INSERT INTO calendar_connections (id, organization_id, member_id, user_id, type, name, display_url, sealed_url, source_hash,
                                           status, next_sync_at, created_at, updated_at)
         VALUES ($1, $2, $3, $4, 'ics', $5, 'http://127.0.0.1/…', $6, $1, 'ok', now() + interval '1 day', now(), now())`,
        [id, organizationId, memberId, userId, `Feed ${n}`, secrets.seal(url(n), id)],
      );
    }
  }
}

/** Makes every connection due and waits until all have synced; connections per second. */
async function round(dataSource: DataSource): Promise<{ seconds: number; cpuMs: number; errors: number }> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const [{ now }] = await dataSource.query(`SELECT now() AS now`);
  await dataSource.query(`UPDATE calendar_connections SET next_sync_at = now()`);
  await dataSource.query(`NOTIFY calendar_sync`);
  for (;;) {
    const [{ done, errors }] = await dataSource.query(
      `SELECT count(*) FILTER (WHERE last_synced_at > $1)::int AS done, count(*) FILTER (WHERE status = 'error')::int AS errors
         FROM calendar_connections`,
      [now],
    );
    if (done >= CONNECTIONS) {
      const used = process.cpuUsage(cpu);
      return { seconds: (performance.now() - started) / 1000, cpuMs: (used.user + used.system) / 1000, errors };
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function plainFetches(url: (n: number) => string): Promise<number> {
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < CONNECTIONS) await (await fetch(url(next++))).text();
    }),
  );
  return (performance.now() - started) / 1000;
}

async function main(): Promise<void> {
  const source = await feedServer();
  const bench = await startBenchApp([], { RUN_WORKERS: 'true', CALENDAR_ALLOW_PRIVATE_URLS: 'true', CALENDAR_SYNC_INTERVAL: '3600' });
  try {
    await seed(bench, source.url);
    const dataSource = bench.app.get(DataSource);
    const baseline = await plainFetches(source.url);
    const first = await round(dataSource);
    const [{ busy }] = await dataSource.query(`SELECT count(*)::int AS busy FROM calendar_busy_times`);
    const requestsBefore = source.requests();
    const second = await round(dataSource);
    const notModified = source.requests() - requestsBefore;

    console.log(`${machine()}; ${new Date().toISOString().slice(0, 10)}`);
    console.log(
      `${CONNECTIONS} ICS connections (${MEMBERS} members × ${PER_MEMBER}), 60 events each (10 weekly series of 30); ${busy} busy intervals stored\n`,
    );
    console.log(row(['Work', 'Seconds', 'Connections/s', 'Node CPU ms per connection', 'Errors']));
    console.log(row(['---', '---:', '---:', '---:', '---:']));
    console.log(
      row([
        `baseline: ${CONNECTIONS} plain GETs of the feeds, ${IN_FLIGHT} in flight`,
        baseline.toFixed(2),
        (CONNECTIONS / baseline).toFixed(0),
        '',
        '',
      ]),
    );
    console.log(
      row([
        'sync, every feed read and its busy times replaced',
        first.seconds.toFixed(2),
        (CONNECTIONS / first.seconds).toFixed(0),
        (first.cpuMs / CONNECTIONS).toFixed(2),
        first.errors,
      ]),
    );
    console.log(
      row([
        `sync again, answered 304 (${notModified} conditional requests)`,
        second.seconds.toFixed(2),
        (CONNECTIONS / second.seconds).toFixed(0),
        (second.cpuMs / CONNECTIONS).toFixed(2),
        second.errors,
      ]),
    );
  } finally {
    await bench.close();
    source.server.close();
  }
}

await main();
