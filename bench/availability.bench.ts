/**
 * Slot engine benchmark. Prints a markdown table for docs/contributing/performance.md.
 *
 *   node --no-warnings --loader ts-node/esm/transpile-only bench/availability.bench.ts
 *
 * Inputs are generated from a fixed seed, so every run measures the same work. The sort baseline
 * is printed alongside so numbers from different machines can be compared by ratio.
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import {
  computeSlots,
  explainStart,
  formatInstantInZone,
  formatInstantsInZone,
  localDateTimeToInstant,
  type BusyInterval,
  type EventTypeRules,
  type HostAvailability,
  type SchedulingType,
  type SlotQuery,
} from '../libs/availability/src/index.js';

const MINUTE = 60_000;
const NOW = Date.UTC(2027, 1, 28, 12);
const START_DATE = '2027-03-01';
/** Spans the 2027 US and EU spring transitions, so DST days are part of the work. */
const ZONES = ['Europe/Berlin', 'America/New_York', 'Asia/Kolkata', 'Europe/London', 'America/Chicago'];

interface Workload {
  readonly name: string;
  readonly query: SlotQuery;
  readonly busyCount: number;
}

interface Measurement {
  readonly median: number;
  readonly p95: number;
  readonly iterations: number;
}

/** mulberry32: small, seedable, good enough to scatter bookings. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

function addDays(date: string, days: number): string {
  const base = new Date(`${date}T00:00:00Z`);
  base.setUTCDate(base.getUTCDate() + days);
  return base.toISOString().slice(0, 10);
}

/** Mon–Fri 09:00–12:00 and 13:00–17:00, a day off now and then, busy intervals inside working hours. */
function makeHost(userId: string, timezone: string, days: number, busyCount: number, rand: () => number): HostAvailability {
  const busy: BusyInterval[] = [];
  for (let index = 0; index < busyCount; index++) {
    const date = addDays(START_DATE, Math.floor(rand() * days));
    const startMinutes = 9 * 60 + Math.floor(rand() * 28) * 15;
    const start = localDateTimeToInstant(
      date,
      `${String(Math.floor(startMinutes / 60)).padStart(2, '0')}:${String(startMinutes % 60).padStart(2, '0')}`,
      timezone,
    );
    busy.push({
      start,
      end: start + (30 + Math.floor(rand() * 4) * 15) * MINUTE,
      bufferBeforeMinutes: rand() < 0.3 ? 10 : 0,
      bufferAfterMinutes: rand() < 0.3 ? 15 : 0,
    });
  }
  const overrides: HostAvailability['overrides'] = {
    [addDays(START_DATE, 9)]: { type: 'unavailable' },
    [addDays(START_DATE, 20)]: { type: 'custom', windows: [{ startTime: '10:00', endTime: '14:00' }] },
  };
  return {
    userId,
    schedule: {
      timezone,
      days: [1, 2, 3, 4, 5].map((dayOfWeek) => ({
        dayOfWeek,
        windows: [
          { startTime: '09:00', endTime: '12:00' },
          { startTime: '13:00', endTime: '17:00' },
        ],
      })),
    },
    overrides,
    busy,
    bookingsPerDate: { [addDays(START_DATE, 3)]: 1 },
    lastBookedAt: rand() < 0.2 ? null : NOW - Math.floor(rand() * 30) * 86_400_000,
  };
}

function workload(
  name: string,
  type: SchedulingType,
  options: { hosts: number; days: number; duration: number; busy: number; zones: readonly string[] },
): Workload {
  const rand = random(42 + options.hosts + options.busy);
  const ids = Array.from({ length: options.hosts }, (_, index) => `usr_${index}`);
  const perHost = Math.round(options.busy / options.hosts);
  const rules: EventTypeRules = {
    durationMinutes: options.duration,
    slotIntervalMinutes: null,
    bufferBeforeMinutes: 5,
    bufferAfterMinutes: 10,
    minimumNoticeHours: 4,
    bookingWindowDays: 365,
    maxBookingsPerDay: 8,
    schedulingType: type,
    hostUserIds: ids,
  };
  return {
    name,
    busyCount: perHost * options.hosts,
    query: {
      rules,
      hosts: ids.map((id, index) => makeHost(id, options.zones[index % options.zones.length], options.days, perHost, rand)),
      now: NOW,
      range: { startDate: START_DATE, endDate: addDays(START_DATE, options.days - 1), timeZone: 'UTC' },
    },
  };
}

/**
 * Round after round, every task runs for a short slice; samples are pooled per task. Interleaving
 * spreads any background load on the machine evenly over the tasks instead of hitting one of them.
 */
function measureAll(tasks: readonly (() => unknown)[], rounds: number, sliceMs: number): Measurement[] {
  for (const task of tasks) {
    const warmUpUntil = performance.now() + sliceMs;
    while (performance.now() < warmUpUntil) task();
  }
  const samples: number[][] = tasks.map(() => []);
  for (let round = 0; round < rounds; round++) {
    tasks.forEach((task, index) => {
      const until = performance.now() + sliceMs;
      do {
        const started = performance.now();
        task();
        samples[index].push(performance.now() - started);
      } while (performance.now() < until);
    });
  }
  return samples.map(summarize);
}

function summarize(samples: number[]): Measurement {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (quantile: number): number => sorted[Math.min(sorted.length - 1, Math.floor(quantile * sorted.length))];
  return { median: at(0.5), p95: at(0.95), iterations: sorted.length };
}

function sortTask(): () => unknown {
  const numbers = Array.from({ length: 100_000 }, random(7));
  return () => numbers.slice().sort((a, b) => a - b);
}

const ms = (value: number): string => value.toFixed(3);

function main(): void {
  const workloads: Workload[] = [
    workload('W1 one_on_one, 1 host, 31 days, 60 min', 'one_on_one', { hosts: 1, days: 31, duration: 60, busy: 200, zones: ZONES }),
    workload('W2 round_robin, 10 hosts, 93 days, 30 min', 'round_robin', { hosts: 10, days: 93, duration: 30, busy: 2000, zones: ZONES }),
    workload('W2 ×2: 20 hosts, 4,000 busy', 'round_robin', { hosts: 20, days: 93, duration: 30, busy: 4000, zones: ZONES }),
    workload('W2 ×4: 40 hosts, 8,000 busy', 'round_robin', { hosts: 40, days: 93, duration: 30, busy: 8000, zones: ZONES }),
    workload('W3 collective, 5 hosts, 93 days, 30 min', 'collective', {
      hosts: 5,
      days: 93,
      duration: 30,
      busy: 500,
      zones: ['Europe/Berlin', 'Europe/Paris', 'Europe/Madrid', 'Africa/Lagos', 'Europe/Oslo'],
    }),
  ];
  const tasks = [sortTask(), ...workloads.map((item) => () => computeSlots(item.query))];
  const w2 = workloads[1].query;
  const w2Instants = computeSlots(w2).flatMap((slot) => [slot.start, slot.end]);
  const w2Probe = w2Instants[w2Instants.length >> 1];
  const extras = [
    { name: 'explainStart, W2 inputs, one start', hosts: 10, busy: 2000, run: () => explainStart(w2, w2Probe) },
    {
      name: `formatInstantsInZone, W2 slots (${w2Instants.length} instants)`,
      hosts: 0,
      busy: 0,
      run: () => formatInstantsInZone(w2Instants, 'America/New_York'),
    },
    {
      name: 'formatInstantInZone one by one, same instants',
      hosts: 0,
      busy: 0,
      run: () => w2Instants.map((instant) => formatInstantInZone(instant, 'America/New_York')),
    },
  ];
  const [baseline, ...results] = measureAll([...tasks, ...extras.map((extra) => extra.run)], 8, 400);

  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  console.log(`Node ${process.version}, ${os.cpus().length} × ${cpu}, ${os.platform()} ${os.arch()}`);
  console.log(`Baseline: sort 100,000 random numbers, median ${ms(baseline.median)} ms (p95 ${ms(baseline.p95)} ms)`);
  console.log('');
  console.log('| Workload | Hosts | Busy intervals | Slots | Median (ms) | p95 (ms) | Median / baseline | Iterations |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  const rows = [
    ...workloads.map((item) => ({
      name: item.name,
      hosts: item.query.hosts.length,
      busy: item.busyCount,
      slots: computeSlots(item.query).length,
    })),
    ...extras.map((extra) => ({ name: extra.name, hosts: extra.hosts || '', busy: extra.busy || '', slots: '' })),
  ];
  rows.forEach((row, index) => {
    const { median, p95, iterations } = results[index];
    const cells = [row.name, row.hosts, row.busy, row.slots, ms(median), ms(p95), (median / baseline.median).toFixed(4), iterations];
    console.log(`| ${cells.join(' | ')} |`);
  });
}

main();
