import fc from 'fast-check';
import { Temporal } from 'temporal-polyfill';
import { busyFromICalendar } from './busy.js';

const ZONES = ['Europe/Berlin', 'America/New_York', 'America/Sao_Paulo', 'Australia/Sydney', 'Asia/Kolkata', 'Pacific/Auckland', 'UTC'];
const pad = (n: number): string => String(n).padStart(2, '0');

function weekly(zone: string, date: Temporal.PlainDate, hour: number, minute: number, count: number, exdate?: Temporal.PlainDate): string {
  const stamp = (d: Temporal.PlainDate): string => `${d.year}${pad(d.month)}${pad(d.day)}T${pad(hour)}${pad(minute)}00`;
  return [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//property//EN',
    'BEGIN:VEVENT',
    'UID:p@test',
    'DTSTAMP:20270101T000000Z',
    `DTSTART;TZID=${zone}:${stamp(date)}`,
    'DURATION:PT45M',
    `RRULE:FREQ=WEEKLY;COUNT=${count}`,
    ...(exdate ? [`EXDATE;TZID=${zone}:${stamp(exdate)}`] : []),
    'END:VEVENT',
    'END:VCALENDAR',
    '',
  ].join('\r\n');
}

const WIDE = { from: Date.parse('2026-01-01T00:00:00Z'), to: Date.parse('2030-01-01T00:00:00Z') };
const dates = fc.integer({ min: 0, max: 364 }).map((offset) => Temporal.PlainDate.from('2027-01-01').add({ days: offset }));

describe('busyFromICalendar properties', () => {
  it('a weekly series keeps its wall-clock time in its zone through every DST change, one instance a week', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...ZONES),
        dates,
        fc.integer({ min: 8, max: 18 }),
        fc.constantFrom(0, 15, 30, 45),
        fc.integer({ min: 1, max: 60 }),
        (zone, date, hour, minute, count) => {
          const result = busyFromICalendar(weekly(zone, date, hour, minute, count), { timeZone: 'UTC', ...WIDE });
          expect(result).toHaveLength(count);
          result.forEach((interval, i) => {
            const local = Temporal.Instant.fromEpochMilliseconds(interval.start).toZonedDateTimeISO(zone);
            expect([local.hour, local.minute]).toEqual([hour, minute]);
            expect(local.toPlainDate().equals(date.add({ weeks: i }))).toBe(true);
            expect(interval.end - interval.start).toBe(45 * 60_000);
          });
        },
      ),
      { numRuns: 150 },
    );
  });

  it('an EXDATE removes exactly its instance', () => {
    fc.assert(
      fc.property(fc.constantFrom(...ZONES), dates, fc.integer({ min: 2, max: 30 }), fc.nat(), (zone, date, count, pick) => {
        const excluded = date.add({ weeks: pick % count });
        const result = busyFromICalendar(weekly(zone, date, 10, 0, count, excluded), { timeZone: 'UTC', ...WIDE });
        expect(result).toHaveLength(count - 1);
        const days = result.map((i) => Temporal.Instant.fromEpochMilliseconds(i.start).toZonedDateTimeISO(zone).toPlainDate().toString());
        expect(days).not.toContain(excluded.toString());
      }),
      { numRuns: 100 },
    );
  });

  it('returns sorted, non-empty intervals that overlap the window, whatever the window', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...ZONES),
        dates,
        fc.integer({ min: 0, max: 400 }),
        fc.integer({ min: 1, max: 60 }),
        (zone, date, startOffset, days) => {
          const from = Date.parse('2027-01-01T00:00:00Z') + startOffset * 86_400_000;
          const to = from + days * 86_400_000;
          const result = busyFromICalendar(weekly(zone, date, 9, 30, 80), { timeZone: 'UTC', from, to });
          for (const [i, interval] of result.entries()) {
            expect(interval.end).toBeGreaterThan(interval.start);
            expect(interval.end).toBeGreaterThan(from);
            expect(interval.start).toBeLessThan(to);
            if (i > 0) expect(interval.start).toBeGreaterThanOrEqual(result[i - 1].start);
          }
          const all = busyFromICalendar(weekly(zone, date, 9, 30, 80), { timeZone: 'UTC', ...WIDE });
          expect(result).toEqual(all.filter((interval) => interval.end > from && interval.start < to));
        },
      ),
      { numRuns: 100 },
    );
  });

  it('an endless series gives the same instances in a window however far its start lies before it', () => {
    const rules = [
      'FREQ=WEEKLY;BYDAY=MO,WE',
      'FREQ=DAILY;INTERVAL=3',
      'FREQ=MONTHLY;BYDAY=-1FR',
      'FREQ=HOURLY;INTERVAL=23',
      'FREQ=YEARLY;BYMONTH=3;BYDAY=2TU',
    ];
    fc.assert(
      fc.property(
        fc.constantFrom(...ZONES),
        fc.constantFrom(...rules),
        fc.integer({ min: 0, max: 3000 }),
        fc.integer({ min: 1, max: 40 }),
        (zone, rule, daysIn, length) => {
          const text = [
            'BEGIN:VCALENDAR',
            'VERSION:2.0',
            'PRODID:-//property//EN',
            'BEGIN:VEVENT',
            'UID:endless@test',
            'DTSTAMP:20270101T000000Z',
            `DTSTART;TZID=${zone}:20190107T091500`,
            'DURATION:PT30M',
            `RRULE:${rule}`,
            'END:VEVENT',
            'END:VCALENDAR',
            '',
          ].join('\r\n');
          const from = Date.parse('2019-01-01T00:00:00Z') + daysIn * 86_400_000;
          const to = from + length * 86_400_000;
          const near = busyFromICalendar(text, { timeZone: 'UTC', from, to });
          const wide = busyFromICalendar(text, { timeZone: 'UTC', from: Date.parse('2018-12-01T00:00:00Z'), to });
          expect(near).toEqual(wide.filter((i) => i.end > from && i.start < to));
          expect(new Set(near.map((i) => i.start)).size).toBe(near.length);
        },
      ),
      { numRuns: 60 },
    );
  });
});
