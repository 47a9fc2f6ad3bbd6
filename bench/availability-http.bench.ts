/**
 * GET /v1/availability under load, against a baseline route doing one primary-key lookup, same app,
 * same run. Goals (issues 15, 40): warm ≥ 0.80 of the body-copy route's requests per second and ≤ 0.35 ms server CPU; cold (every
 * request a miss) no slower than the same app without the cache, measured in the same run.
 *
 *   node --no-warnings --loader ts-node/esm/transpile-only bench/availability-http.bench.ts
 *
 * Uses DATABASE_URL's server when set (it creates and drops a scratch database), else an embedded
 * PostgreSQL. Seeds two organizations alike: a round-robin event type (30 min) with 5 hosts in five
 * zones, Monday–Friday 09:00–17:00 each, and 1,000 confirmed bookings spread over the next 60 days; in the
 * second, each host also has a connected calendar with 2,000 busy intervals over the 730-day sync window
 * (goal: ≤ 1 ms more server CPU per request than the first).
 */
import { randomBytes } from 'node:crypto';
import { Controller, Get, Module, Param } from '@nestjs/common';
import { SkipThrottle } from '@nestjs/throttler';
import { DataSource } from 'typeorm';
import { addDays, localDateTimeToInstant } from '../libs/availability/src/index.js';
import { newId, Public } from '../libs/common/src/index.js';
import { reportGoal } from './support/goals.js';
import { AvailabilityCache } from '../apps/api/src/modules/availability/availability-cache.service.js';
import { BaselineModule, load, loadSplit, machine, row, startBenchApp, startInstance, type BenchApp } from './support/harness.js';

/** A copy of one availability response, for the route that measures what its size alone costs. */
let sameBody: unknown = null;

@Public()
@SkipThrottle()
@Controller('bench')
class ReferenceController {
  constructor(private readonly dataSource: DataSource) {}

  @Get('same-body/:id')
  async sameBody(@Param('id') id: string): Promise<unknown> {
    await this.dataSource.query('SELECT id FROM organizations WHERE id = $1', [id]);
    return sameBody;
  }
}

@Module({ controllers: [ReferenceController] })
class ReferenceModule {}

const CONNECTIONS = 50;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
/** `perDay,perWeek` (e.g. `8,30`): booking limits (contract § 17) on every host of both organizations; unset: none. */
const HOST_LIMITS = process.env.BENCH_HOST_LIMITS?.split(',').map((value) => (value === '' ? null : Number(value)));
/**
 * Out-of-office entries per host (contract § 17): that many afternoons off (13:00 to 15:00 UTC) spread over the range,
 * and the first host away for its second week with the second host as its redirect.
 */
const OUT_OF_OFFICE = Number(process.env.BENCH_OUT_OF_OFFICE ?? 0);
const PROCESSES = 5;
const HOST_ZONES = ['Europe/Berlin', 'America/New_York', 'Europe/London', 'America/Chicago', 'Asia/Kolkata'];
const BOOKINGS = 1000;
const RANGE_DAYS = 31;
/** The page the publishable keys answer. */
const SHOP_ORIGIN = 'https://shop.example.com';
const RESPONSE_ZONE = 'Europe/Berlin';
const EXTERNAL_BUSY_PER_HOST = 2000;

/** mulberry32: the same bookings on every run. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

async function api<T>(bench: BenchApp, method: string, path: string, body: unknown, auth?: string): Promise<T> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (auth) headers.authorization = auth;
  const res = await fetch(`${bench.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

interface Seeded {
  organizationId: string;
  apiKeys: string[];
  publishableKeys: string[];
  eventTypeId: string;
  hostIds: string[];
  start: string;
  end: string;
}

async function seed(bench: BenchApp, name: string, externalBusyPerHost: number): Promise<Seeded> {
  const owner = await api<{ accessToken: string; user: { id: string }; organization: { id: string } }>(bench, 'POST', '/v1/auth/register', {
    email: `${name}-owner@example.com`,
    password: 'bench password',
    organizationName: name,
  });
  const bearer = `Bearer ${owner.accessToken}`;
  const dataSource = bench.app.get(DataSource);
  // Four more active members, written directly: invitations would need the mail worker, which the run keeps off.
  const hostIds = [owner.user.id];
  for (let i = 1; i < HOST_ZONES.length; i++) {
    const userId = newId('usr');
    const email = `${name}-host-${i}@example.com`;
    await dataSource.query(
      `INSERT INTO users (id, email, password_hash, timezone, created_at, updated_at) VALUES ($1, $2, 'x', $3, now(), now())`,
      [userId, email, HOST_ZONES[i]],
    );
    await dataSource.query(
      `INSERT INTO members (id, organization_id, user_id, email, role, status, joined_at, created_at, updated_at)
       VALUES ($1, $2, $3, $4, 'member', 'active', now(), now(), now())`,
      [newId('mem'), owner.organization.id, userId, email],
    );
    hostIds.push(userId);
  }
  // A key may make at most 10,000 requests a minute: the load is spread over enough keys that the
  // limiter runs on every request but never refuses one.
  const apiKeys: string[] = [];
  // One more for warm-ups and samples.
  for (let i = 0; i <= PROCESSES; i++) {
    apiKeys.push(
      (await api<{ apiKey: string }>(bench, 'POST', '/v1/api-keys', { name: `${name} ${i}`, rateLimitPerMinute: 10000 }, bearer)).apiKey,
    );
  }
  // Publishable keys for GET /v1/public/availability (api-rules.md § Browser booking), likewise one per load process.
  const publishableKeys: string[] = [];
  for (let i = 0; i <= PROCESSES; i++) {
    const body = { name: `${name} page ${i}`, kind: 'publishable', allowedOrigins: [SHOP_ORIGIN], rateLimitPerMinute: 10000 };
    publishableKeys.push((await api<{ apiKey: string }>(bench, 'POST', '/v1/api-keys', body, bearer)).apiKey);
  }
  const auth = `ApiKey ${apiKeys[0]}`;
  const week = [1, 2, 3, 4, 5].map((dayOfWeek) => ({ dayOfWeek, slots: [{ startTime: '09:00', endTime: '17:00' }] }));
  for (const [index, userId] of hostIds.entries()) {
    await api(bench, 'PUT', `/v1/availability/schedules?userId=${userId}`, { timezone: HOST_ZONES[index], schedules: week }, auth);
  }
  const { eventType } = await api<{ eventType: { id: string } }>(
    bench,
    'POST',
    '/v1/event-types',
    { title: 'Bench', slug: 'bench', durationMinutes: 30, schedulingType: 'round_robin', hostUserIds: hostIds, bufferAfterMinutes: 10 },
    auth,
  );

  // 200 bookings per host on the grid of its working hours, never two at one time for one host.
  const today = new Date().toISOString().slice(0, 10);
  const rand = random(42);
  const rows: { id: string; host: string; startsAt: number; createdAt: number }[] = [];
  for (const [index, host] of hostIds.entries()) {
    const taken = new Set<number>();
    while (taken.size < BOOKINGS / hostIds.length) {
      const date = addDays(today, 1 + Math.floor(rand() * 60));
      const weekday = new Date(`${date}T00:00:00Z`).getUTCDay();
      if (weekday === 0 || weekday === 6) continue;
      const minutes = 9 * 60 + 30 * Math.floor(rand() * 16);
      const time = `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
      const startsAt = localDateTimeToInstant(date, time, HOST_ZONES[index]);
      if (taken.has(startsAt)) continue;
      taken.add(startsAt);
      rows.push({ id: newId('bkg'), host, startsAt, createdAt: Date.now() - Math.floor(rand() * 30 * 86_400_000) });
    }
  }
  const columns = {
    ids: rows.map((r) => r.id),
    hosts: rows.map((r) => r.host),
    starts: rows.map((r) => new Date(r.startsAt).toISOString()),
    ends: rows.map((r) => new Date(r.startsAt + 30 * 60_000).toISOString()),
    created: rows.map((r) => new Date(r.createdAt).toISOString()),
  };
  await dataSource.transaction(async (manager) => {
    await manager.query(
      `INSERT INTO bookings (id, organization_id, event_type_id, livemode, status, starts_at, ends_at, host_user_id, attendee_email,
                             timezone, buffer_before_minutes, buffer_after_minutes, confirmation_token_hash, created_at, updated_at)
       SELECT b.id, $1, $2, true, 'confirmed', b.starts_at, b.ends_at, b.host, 'attendee@example.com', 'UTC', 0, 10, $8, b.created, b.created
         FROM unnest($3::text[], $4::text[], $5::timestamptz[], $6::timestamptz[], $7::timestamptz[]) AS b(id, host, starts_at, ends_at, created)`,
      [
        owner.organization.id,
        eventType.id,
        columns.ids,
        columns.hosts,
        columns.starts,
        columns.ends,
        columns.created,
        randomBytes(16).toString('hex'),
      ],
    );
    await manager.query(
      `INSERT INTO booking_hosts (booking_id, host_user_id, organization_id, event_type_id, livemode, status, during, created_at)
       SELECT id, host_user_id, organization_id, event_type_id, livemode, status, tstzrange(starts_at, ends_at, '[)'), created_at
         FROM bookings WHERE organization_id = $1`,
      [owner.organization.id],
    );
  });
  if (externalBusyPerHost > 0) await seedExternalBusy(dataSource, owner.organization.id, hostIds, externalBusyPerHost, rand);
  if (HOST_LIMITS) {
    await dataSource.query(`UPDATE members SET booking_limits = $2 WHERE organization_id = $1`, [
      owner.organization.id,
      { perDay: HOST_LIMITS[0] ?? null, perWeek: HOST_LIMITS[1] ?? null },
    ]);
  }
  if (OUT_OF_OFFICE > 0) {
    for (const [index, userId] of hostIds.entries()) {
      for (let k = 0; k < OUT_OF_OFFICE; k++) {
        const date = addDays(today, 1 + ((k * 5 + index) % RANGE_DAYS));
        const body = { userId, startsAt: `${date}T13:00:00Z`, endsAt: `${date}T15:00:00Z`, note: 'Bench afternoon' };
        if (index === 0 && date > addDays(today, 7) && date <= addDays(today, 14)) continue;
        await api(bench, 'POST', '/v1/out-of-office', body, auth);
      }
    }
    const away = {
      userId: hostIds[0],
      startsAt: `${addDays(today, 8)}T00:00:00Z`,
      endsAt: `${addDays(today, 15)}T00:00:00Z`,
      redirectToUserId: hostIds[1],
    };
    await api(bench, 'POST', '/v1/out-of-office', away, auth);
  }
  await dataSource.query('ANALYZE');
  const start = addDays(today, 1);
  return {
    organizationId: owner.organization.id,
    apiKeys,
    publishableKeys,
    eventTypeId: eventType.id,
    hostIds,
    start,
    end: addDays(start, RANGE_DAYS - 1),
  };
}

/**
 * One ICS connection per host holding `perHost` busy intervals of 30–90 minutes at random times over the
 * sync window (yesterday to 730 days ahead), as a sync would have stored them.
 */
async function seedExternalBusy(dataSource: DataSource, organizationId: string, hostIds: string[], perHost: number, rand: () => number) {
  for (const userId of hostIds) {
    const connectionId = newId('cal');
    await dataSource.query(
      `INSERT INTO calendar_connections (id, organization_id, member_id, user_id, type, name, display_url, sealed_url, source_hash,
                                         status, busy_count, next_sync_at, created_at, updated_at)
       SELECT $1, $2, m.id, $3, 'ics', 'Work', 'https://calendar.example.com/…', 'unused', $1, 'ok', $4, now() + interval '1 day', now(), now()
         FROM members m WHERE m.organization_id = $2 AND m.user_id = $3`,
      [connectionId, organizationId, userId, perHost],
    );
    const starts = Array.from({ length: perHost }, () => Date.now() - 86_400_000 + Math.floor(rand() * 731 * 96) * 900_000);
    const ends = starts.map((start) => start + (2 + Math.floor(rand() * 5)) * 900_000);
    await dataSource.query(
      `INSERT INTO calendar_busy_times (connection_id, organization_id, user_id, starts_at, ends_at)
       SELECT $1, $2, $3, to_timestamp(s::float8 / 1000), to_timestamp(e::float8 / 1000) FROM unnest($4::bigint[], $5::bigint[]) AS b(s, e)`,
      [connectionId, organizationId, userId, starts, ends],
    );
  }
}

async function main(): Promise<void> {
  // Mail and webhook workers stay off: they would share the CPU with the routes being measured.
  const bench = await startBenchApp([BaselineModule, ReferenceModule], { RUN_WORKERS: 'false' });
  try {
    const seeded = await seed(bench, 'bench', 0);
    const withCalendars = await seed(bench, 'bench-calendars', EXTERNAL_BUSY_PER_HOST);
    const availabilityUrl = (org: Seeded): string =>
      `${bench.url}/v1/availability?eventTypeId=${org.eventTypeId}&start=${org.start}&end=${org.end}&timezone=${RESPONSE_ZONE}`;
    const url = availabilityUrl(seeded);
    // A routed visitor (contract § 22): a form whose rule sends companies of 200 and more to three of the five hosts.
    const auth = `ApiKey ${seeded.apiKeys[PROCESSES]}`;
    const { routingForm } = await api<{ routingForm: { id: string } }>(
      bench,
      'POST',
      '/v1/routing-forms',
      {
        name: 'Bench routing',
        fields: [{ id: 'size', label: 'Company size', type: 'number', required: true }],
        routes: [
          {
            when: { all: [{ field: 'size', op: 'gte', value: 200 }] },
            to: { eventTypeId: seeded.eventTypeId, hostUserIds: seeded.hostIds.slice(0, 3) },
          },
        ],
        fallback: { message: 'Thank you' },
      },
      auth,
    );
    const { response } = await api<{ response: { id: string } }>(
      bench,
      'POST',
      `/v1/routing-forms/${routingForm.id}/responses`,
      { answers: { size: 500 } },
      auth,
    );
    const routedUrl = `${url}&routingResponseId=${response.id}`;
    const routedSample = await fetch(routedUrl, { headers: { authorization: auth } });
    if (routedSample.status !== 200) throw new Error(`GET /v1/availability routed: ${routedSample.status} ${await routedSample.text()}`);
    const calendarsUrl = availabilityUrl(withCalendars);
    const headersOf = (keys: string[]) => keys.map((apiKey) => ({ authorization: `ApiKey ${apiKey}` }));
    const [warmUpKey, ...keyHeaders] = headersOf(seeded.apiKeys).reverse();
    const [calendarWarmUpKey, ...calendarKeyHeaders] = headersOf(withCalendars.apiKeys).reverse();
    const noHeaders = keyHeaders.map(() => ({}));
    // The same answer for an attendee's page: a publishable key from an allowed origin, no host ids.
    const publicUrl = url.replace('/v1/availability?', '/v1/public/availability?');
    const [publicWarmUpKey, ...publicKeyHeaders] = seeded.publishableKeys
      .map((apiKey) => ({ authorization: `ApiKey ${apiKey}`, origin: SHOP_ORIGIN }))
      .reverse();
    const publicSample = await fetch(publicUrl, { headers: publicWarmUpKey });
    if (publicSample.status !== 200) throw new Error(`GET /v1/public/availability: ${publicSample.status} ${await publicSample.text()}`);
    const publicBytes = (await publicSample.text()).length;
    const sample = await fetch(url, { headers: warmUpKey });
    const sampleText = await sample.text();
    if (sample.status !== 200) throw new Error(`GET /v1/availability: ${sample.status} ${sampleText}`);
    sameBody = JSON.parse(sampleText);
    const slotCount = (sameBody as { slots: unknown[] }).slots.length;
    const calendarSample = (await (await fetch(calendarsUrl, { headers: calendarWarmUpKey })).json()) as { slots: unknown[] };
    // A second instance whose cache never finds an entry: every request takes the path of the first one
    // after a change (fingerprint, compute, store). A third without the cache: the path before it.
    const cold = await startInstance(bench.databaseUrl, [], { RUN_WORKERS: 'false' });
    cold.app.get(AvailabilityCache).get = () => undefined;
    const uncached = await startInstance(bench.databaseUrl, [], { RUN_WORKERS: 'false', AVAILABILITY_CACHE_MB: '0' });
    const coldUrl = url.replace(bench.url, cold.url);
    const uncachedUrl = url.replace(bench.url, uncached.url);
    const coldCalendarsUrl = calendarsUrl.replace(bench.url, cold.url);
    const coldRoutedUrl = routedUrl.replace(bench.url, cold.url);
    const baselineUrl = `${bench.url}/v1/bench/baseline/${seeded.organizationId}`;
    const sameBodyUrl = `${bench.url}/v1/bench/same-body/${seeded.organizationId}`;

    // Warm up every route, then measure them back to back with the same process layout.
    await load(baselineUrl, { connections: 10, seconds: 2 });
    await load(sameBodyUrl, { connections: 10, seconds: 2 });
    await load(url, { connections: 10, seconds: 2, headers: warmUpKey });
    await load(publicUrl, { connections: 10, seconds: 2, headers: publicWarmUpKey });
    await load(coldUrl, { connections: 10, seconds: 2, headers: warmUpKey });
    await load(uncachedUrl, { connections: 10, seconds: 2, headers: warmUpKey });
    await load(coldCalendarsUrl, { connections: 10, seconds: 2, headers: calendarWarmUpKey });
    await load(routedUrl, { connections: 10, seconds: 2, headers: warmUpKey });
    await load(coldRoutedUrl, { connections: 10, seconds: 2, headers: warmUpKey });
    const baseline = await loadSplit(baselineUrl, { connections: CONNECTIONS, seconds: SECONDS, headers: noHeaders });
    const size = await loadSplit(sameBodyUrl, { connections: CONNECTIONS, seconds: SECONDS, headers: noHeaders });
    const measured = async (target: string, headers: Record<string, string>[]) => {
      const before = process.cpuUsage();
      const result = await loadSplit(target, { connections: CONNECTIONS, seconds: SECONDS, headers });
      const used = process.cpuUsage(before);
      return { result, cpuMs: (used.user + used.system) / 1000 / result.requests };
    };
    const warm = await measured(url, keyHeaders);
    const publicWarm = await measured(publicUrl, publicKeyHeaders);
    const plain = await measured(coldUrl, keyHeaders);
    const before = await measured(uncachedUrl, keyHeaders);
    const external = await measured(coldCalendarsUrl, calendarKeyHeaders);
    const routedWarm = await measured(routedUrl, keyHeaders);
    const routedCold = await measured(coldRoutedUrl, keyHeaders);
    await cold.app.close();
    await uncached.app.close();

    console.log(
      `${machine()}; ${CONNECTIONS} connections over ${PROCESSES} autocannon processes, ${SECONDS} s each; ${new Date().toISOString().slice(0, 10)}`,
    );
    console.log(
      `Round robin, 5 hosts, ${BOOKINGS} bookings; range ${seeded.start}..${seeded.end} (${RANGE_DAYS} dates) in ${RESPONSE_ZONE}: ` +
        `${slotCount} slots, ${sampleText.length} bytes per response; with ${EXTERNAL_BUSY_PER_HOST} external busy intervals per host: ` +
        `${calendarSample.slots.length} slots\n`,
    );
    console.log(row(['Route', 'Requests/s', 'p50 (ms)', 'p99 (ms)', 'Requests', 'Non-2xx', 'Errors', 'Server CPU ms/request']));
    console.log(row(['---', '---:', '---:', '---:', '---:', '---:', '---:', '---:']));
    for (const [name, r, cpu] of [
      ['Baseline: one primary-key lookup (public route)', baseline, ''],
      ['Same lookup, answering a copy of the availability body', size, ''],
      ['GET /v1/availability, 31 dates, API key: warm (cached, validated)', warm.result, warm.cpuMs.toFixed(2)],
      [
        `GET /v1/public/availability, publishable key and Origin: warm (${publicBytes} bytes, no host ids)`,
        publicWarm.result,
        publicWarm.cpuMs.toFixed(2),
      ],
      ['… cold (computed: the first request after a change)', plain.result, plain.cpuMs.toFixed(2)],
      ['… without the cache (AVAILABILITY_CACHE_MB=0: the path before it)', before.result, before.cpuMs.toFixed(2)],
      [`… cold, hosts with ${EXTERNAL_BUSY_PER_HOST} external busy intervals each`, external.result, external.cpuMs.toFixed(2)],
      ['… warm, routed to 3 of the 5 hosts (routingResponseId)', routedWarm.result, routedWarm.cpuMs.toFixed(2)],
      ['… cold, routed to 3 of the 5 hosts', routedCold.result, routedCold.cpuMs.toFixed(2)],
    ] as const) {
      console.log(row([name, r.requestsPerSecond.toFixed(0), r.p50, r.p99, r.requests, r.non2xx, r.errors, cpu]));
    }
    const warmRatio = warm.result.requestsPerSecond / size.requestsPerSecond;
    const extra = external.cpuMs - plain.cpuMs;
    console.log('');
    reportGoal({
      bench: 'availability-http',
      goal: 'GET /v1/availability warm ≥ 0.80 of the body-copy route and ≤ 0.35 ms server CPU',
      result: `${warmRatio.toFixed(2)}, ${warm.cpuMs.toFixed(2)} ms (${warm.result.requestsPerSecond.toFixed(0)}/s against ${size.requestsPerSecond.toFixed(0)}/s; p99 ${warm.result.p99} ms)`,
      met: warmRatio >= 0.8 && warm.cpuMs <= 0.35,
    });
    const publicRatio = publicWarm.result.requestsPerSecond / size.requestsPerSecond;
    reportGoal({
      bench: 'availability-http',
      goal: 'GET /v1/public/availability warm ≥ 0.80 of the body-copy route and ≤ 0.35 ms server CPU',
      result: `${publicRatio.toFixed(2)}, ${publicWarm.cpuMs.toFixed(2)} ms (${publicWarm.result.requestsPerSecond.toFixed(0)}/s against ${size.requestsPerSecond.toFixed(0)}/s; p99 ${publicWarm.result.p99} ms)`,
      met: publicRatio >= 0.8 && publicWarm.cpuMs <= 0.35,
    });
    reportGoal({
      bench: 'availability-http',
      goal: 'GET /v1/availability cold no slower than without the cache (requests/s)',
      result: `${(plain.result.requestsPerSecond / before.result.requestsPerSecond).toFixed(2)} of it (${plain.cpuMs.toFixed(2)} against ${before.cpuMs.toFixed(2)} ms server CPU)`,
      met: plain.result.requestsPerSecond >= before.result.requestsPerSecond * 0.97,
    });
    reportGoal({
      bench: 'availability-http',
      goal: `${EXTERNAL_BUSY_PER_HOST} external busy intervals per host ≤ +1 ms server CPU per request`,
      result: `${extra >= 0 ? '+' : ''}${extra.toFixed(2)} ms`,
      met: extra <= 1,
    });
    reportGoal({
      bench: 'availability-http',
      goal: 'a routed GET /v1/availability (routingResponseId) ≤ 1.1× the server CPU of a plain one, warm and cold',
      result: `warm ${(routedWarm.cpuMs / warm.cpuMs).toFixed(2)}× (${routedWarm.cpuMs.toFixed(2)} against ${warm.cpuMs.toFixed(2)} ms), cold ${(routedCold.cpuMs / plain.cpuMs).toFixed(2)}× (${routedCold.cpuMs.toFixed(2)} against ${plain.cpuMs.toFixed(2)} ms)`,
      met: routedWarm.cpuMs <= warm.cpuMs * 1.1 && routedCold.cpuMs <= plain.cpuMs * 1.1,
    });
  } finally {
    await bench.close();
  }
}

await main();
