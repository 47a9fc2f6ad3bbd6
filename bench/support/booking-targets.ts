import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { LoadResult } from './harness.js';

const run = promisify(execFile);
export const CONNECTIONS = 50;
export const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
export const PROCESSES = 2;

/** What the booking benchmarks set up: organizations with one host each, bookable all day, every day. */
export interface Target {
  apiKey: string;
  eventTypeId: string;
}

export async function post(url: string, path: string, body: unknown, token: string): Promise<Record<string, unknown>> {
  const res = await fetch(`${url}${path}`, {
    method: path.includes('schedules') ? 'PUT' : 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Record<string, unknown>;
}

/**
 * `hosts` organizations (`label` keeps their emails apart between benchmarks on one database), each with a
 * 5-minute event type bookable around the clock for two years and an API key with a high limit. Bookings of
 * one host serialize on that host's lock, so the realistic load spreads over hosts.
 */
export async function bookingTargets(url: string, hosts: number, label = 'bench'): Promise<Target[]> {
  const everyDay = [0, 1, 2, 3, 4, 5, 6].map((dayOfWeek) => ({ dayOfWeek, slots: [{ startTime: '00:00', endTime: '24:00' }] }));
  const targets: Target[] = [];
  for (let i = 0; i < hosts; i++) {
    const owner = (await post(
      url,
      '/v1/auth/register',
      { email: `${label}${i}@example.com`, password: 'bench password', organizationName: `Bench ${i}` },
      '',
    )) as { accessToken: string };
    await post(url, '/v1/availability/schedules', { timezone: 'UTC', schedules: everyDay }, owner.accessToken);
    const eventType = (
      await post(url, '/v1/event-types', { title: 'Load', slug: 'load', durationMinutes: 5, bookingWindowDays: 730 }, owner.accessToken)
    ).eventType as { id: string };
    const apiKey = (await post(url, '/v1/api-keys', { name: 'load', rateLimitPerMinute: 10000 }, owner.accessToken)).apiKey as string;
    targets.push({ apiKey, eventTypeId: eventType.id });
  }
  return targets;
}

/**
 * POST /v1/bookings from PROCESSES load processes (booking-load.ts) with CONNECTIONS connections for SECONDS: the
 * maximum rate, or `rate` per second offered evenly (or through autocannon's overallRate). Each booking takes the
 * next 5-minute slot of its target from `firstSlot`; with `seatsPerStart`, that many bookings share each start.
 */
export async function loadBookings(
  url: string,
  targets: Target[],
  firstSlot = '2027-01-04T00:00:00.000Z',
  rate?: number,
  pacing: 'even' | 'autocannon' = 'even',
  seatsPerStart = 1,
): Promise<LoadResult> {
  const parts = await Promise.all(
    Array.from({ length: PROCESSES }, async (_, index) => {
      const { stdout } = await run(
        process.execPath,
        [
          'dist-bench/bench/support/booking-load.js',
          url,
          JSON.stringify(targets),
          firstSlot,
          String(index),
          String(PROCESSES),
          String(CONNECTIONS / PROCESSES),
          String(SECONDS),
          ...(rate ? [String(Math.max(1, Math.round(rate / PROCESSES))), pacing] : []),
        ],
        { maxBuffer: 64 * 1024 * 1024, env: { ...process.env, BENCH_SEATS_PER_START: String(seatsPerStart) } },
      );
      return JSON.parse(stdout) as {
        requests: { average: number; total: number };
        latency: { p50: number; p99: number };
        non2xx: number;
        errors: number;
      };
    }),
  );
  const requests = parts.reduce((s, p) => s + p.requests.total, 0);
  return {
    requestsPerSecond: parts.reduce((s, p) => s + p.requests.average, 0),
    p50: Math.round((parts.reduce((s, p) => s + p.latency.p50 * p.requests.total, 0) / Math.max(1, requests)) * 10) / 10,
    p99: Math.max(...parts.map((p) => p.latency.p99)),
    requests,
    non2xx: parts.reduce((s, p) => s + p.non2xx, 0),
    errors: parts.reduce((s, p) => s + p.errors, 0),
  };
}
