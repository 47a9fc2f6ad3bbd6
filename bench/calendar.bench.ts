/**
 * iCalendar → busy intervals (libs/calendar), the work of one ICS sync. Prints a markdown table for
 * docs/contributing/performance.md:
 *
 *   npm run bench:calendar
 *
 * A 5,000-event feed with 500 recurring series (weekly with EXDATEs, daily, monthly by weekday, some
 * moved instances), in the zones hosts use, expanded over the sync window (yesterday to 730 days ahead).
 * Baseline in the same run: ical.js parsing the same text alone (what any reader of the feed pays).
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import ICAL from 'ical.js';
import { busyFromICalendar } from '../libs/calendar/src/index.js';
import { reportGoal } from './support/goals.js';

const ZONES = ['Europe/Berlin', 'America/New_York', 'Asia/Kolkata', 'Australia/Sydney'];
const NOW = Date.UTC(2027, 2, 1);
const DAY = 86_400_000;
const pad = (n: number): string => String(n).padStart(2, '0');
const stamp = (d: Date): string =>
  `${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}T${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}00`;

function feed(): string {
  const lines = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//bench//EN'];
  let seed = 42;
  const random = (): number => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  for (let i = 0; i < 5000; i++) {
    const zone = ZONES[i % ZONES.length];
    const start = new Date(NOW - 400 * DAY + Math.floor(random() * 1100) * DAY + (8 + Math.floor(random() * 9)) * 3_600_000);
    lines.push(
      'BEGIN:VEVENT',
      `UID:event-${i}@bench`,
      'DTSTAMP:20270101T000000Z',
      `DTSTART;TZID=${zone}:${stamp(start)}`,
      'DURATION:PT45M',
    );
    if (i < 500) {
      const kind = i % 3;
      if (kind === 0) lines.push('RRULE:FREQ=WEEKLY;BYDAY=MO,WE,FR', `EXDATE;TZID=${zone}:${stamp(new Date(start.getTime() + 14 * DAY))}`);
      else if (kind === 1) lines.push('RRULE:FREQ=DAILY;INTERVAL=2;UNTIL=20290101T000000Z');
      else lines.push('RRULE:FREQ=MONTHLY;BYDAY=-1FR');
    }
    lines.push('SUMMARY:Meeting', 'END:VEVENT');
    if (i < 100) {
      // A moved instance of a series.
      const moved = new Date(start.getTime() + 7 * DAY);
      lines.push('BEGIN:VEVENT', `UID:event-${i}@bench`, 'DTSTAMP:20270101T000000Z', `RECURRENCE-ID;TZID=${zone}:${stamp(moved)}`);
      lines.push(`DTSTART;TZID=${zone}:${stamp(new Date(moved.getTime() + 3_600_000))}`, 'DURATION:PT45M', 'END:VEVENT');
    }
  }
  lines.push('END:VCALENDAR', '');
  return lines.join('\r\n');
}

function measure<T>(work: () => T): { result: T; cpuMs: number; wallMs: number } {
  const cpu = process.cpuUsage();
  const wall = performance.now();
  const result = work();
  const used = process.cpuUsage(cpu);
  return { result, cpuMs: (used.user + used.system) / 1000, wallMs: performance.now() - wall };
}

const text = feed();
const options = { timeZone: 'Europe/Berlin', from: NOW - DAY, to: NOW + 730 * DAY };
busyFromICalendar(text, options); // warm-up: JIT and zone data
const rssBefore = process.memoryUsage().rss;
const runs = [0, 1, 2].map(() => measure(() => busyFromICalendar(text, options)));
const rss = process.memoryUsage().rss;
const parse = [0, 1, 2].map(() => measure(() => ICAL.parse(text)));
const best = (list: { cpuMs: number }[]): number => Math.min(...list.map((m) => m.cpuMs));

const cpu = best(runs);
console.log(
  `Node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model.split(' ').slice(0, 2).join(' ')}; ${new Date().toISOString().slice(0, 10)}`,
);
console.log(
  `Feed: ${(text.length / 1024 / 1024).toFixed(1)} MiB, 5,000 events, 500 recurring series, 100 moved instances; window 731 days\n`,
);
console.log('| Work | CPU ms (best of 3) | Busy intervals | RSS MB |');
console.log('| --- | ---: | ---: | ---: |');
console.log(`| baseline: ICAL.parse of the text only | ${best(parse).toFixed(0)} |  |  |`);
console.log(
  `| busyFromICalendar (parse, expand, convert) | ${cpu.toFixed(0)} | ${runs[0].result.length} | ${(rss / 1024 / 1024).toFixed(0)} |`,
);
console.log('');
reportGoal({
  bench: 'calendar',
  goal: '5,000-event feed parsed and expanded ≤ 1,000 ms CPU and ≤ 200 MB RSS',
  result: `${cpu.toFixed(0)} ms, ${(rss / 1024 / 1024).toFixed(0)} MB (${(rssBefore / 1024 / 1024).toFixed(0)} MB before the runs)`,
  met: cpu <= 1000 && rss <= 200 * 1024 * 1024,
});
