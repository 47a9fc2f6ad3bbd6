import fc from 'fast-check';
import ICAL from 'ical.js';
import { busyFromICalendar } from './busy.js';
import { fastClone, originalClone } from './ical-time-clone.js';

const Time = ICAL.Time as unknown as new (data?: object, zone?: ICAL.Timezone | null) => ICAL.Time;

const observe = (time: ICAL.Time): unknown[] => [
  time.year,
  time.month,
  time.day,
  time.hour,
  time.minute,
  time.second,
  time.isDate,
  time.zone,
  time.toString(),
  time.toUnixTime(),
  time.dayOfWeek(),
  time.dayOfYear(),
];

// Fields out of range too (hour 30, day 0…40): ical.js keeps them until a read normalizes them.
const times = fc
  .record({
    year: fc.integer({ min: 1900, max: 2100 }),
    month: fc.integer({ min: 1, max: 12 }),
    day: fc.integer({ min: 0, max: 40 }),
    hour: fc.integer({ min: 0, max: 30 }),
    minute: fc.integer({ min: 0, max: 70 }),
    second: fc.integer({ min: 0, max: 70 }),
    isDate: fc.boolean(),
    zone: fc.constantFrom(ICAL.Timezone.utcTimezone, ICAL.Timezone.localTimezone, null),
    adjustBy: fc.integer({ min: -40, max: 40 }),
  })
  .map(({ zone, adjustBy, ...data }) => ({ time: new Time(data, zone), adjustBy }));

describe('ical.js Time.clone replaced by a field copy', () => {
  it('is installed', () => {
    expect(ICAL.Time.prototype.clone).toBe(fastClone);
  });

  it('gives what the original gives, before and after the clone or its source is changed', () => {
    fc.assert(
      fc.property(times, ({ time, adjustBy }) => {
        const [fast, original] = [fastClone.call(time), originalClone.call(time)];
        expect(observe(fast)).toEqual(observe(original));
        fast.adjust(adjustBy, 3, 0, 0);
        original.adjust(adjustBy, 3, 0, 0);
        fast.day += 1;
        original.day += 1;
        expect(observe(fast)).toEqual(observe(original));
        // The source is untouched by changes to either clone.
        expect(observe(time)).toEqual(observe(originalClone.call(time)));
      }),
      { numRuns: 2000 },
    );
  });

  it('expands recurrences to the same busy times as the original', () => {
    const feed = [
      'BEGIN:VCALENDAR',
      'VERSION:2.0',
      'PRODID:-//test//EN',
      ...[
        'FREQ=MONTHLY;BYDAY=-1FR',
        'FREQ=WEEKLY;BYDAY=MO,WE,FR;INTERVAL=2',
        'FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29',
        'FREQ=DAILY;BYHOUR=9,15',
      ]
        .map((rule, i) => [
          'BEGIN:VEVENT',
          `UID:r${i}@test`,
          'DTSTART;TZID=America/New_York:20270131T093000',
          'DURATION:PT1H',
          `RRULE:${rule}`,
          'END:VEVENT',
        ])
        .flat(),
      'END:VCALENDAR',
      '',
    ].join('\r\n');
    const options = { timeZone: 'UTC', from: Date.parse('2027-01-01T00:00:00Z'), to: Date.parse('2029-01-01T00:00:00Z') };
    const fast = busyFromICalendar(feed, options);
    ICAL.Time.prototype.clone = originalClone;
    try {
      expect(fast).toEqual(busyFromICalendar(feed, options));
      expect(fast.length).toBeGreaterThan(1000);
    } finally {
      ICAL.Time.prototype.clone = fastClone;
    }
  });
});
