import { CalendarParseError, CalendarTooLargeError } from '@app/calendar';
import type { AppConfig } from '@app/common';
import { CalendarParser } from './calendar-parser.service.js';

const WINDOW = { timeZone: 'Europe/Berlin', from: Date.parse('2027-01-01T00:00:00Z'), to: Date.parse('2029-01-01T00:00:00Z') };
const event = (...lines: string[]): string =>
  ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//test//EN', 'BEGIN:VEVENT', 'UID:e@test', ...lines, 'END:VEVENT', 'END:VCALENDAR', ''].join(
    '\r\n',
  );

/** 60,000 one-hour events: a few hundred milliseconds of parsing. */
function slow(): string {
  const lines = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//test//EN'];
  for (let i = 0; i < 60_000; i++)
    lines.push('BEGIN:VEVENT', `DTSTART:${20270101 + (i % 28)}T${String(i % 24).padStart(2, '0')}0000Z`, 'DURATION:PT1H', 'END:VEVENT');
  return [...lines, 'END:VCALENDAR', ''].join('\r\n');
}

describe('CalendarParser (worker threads)', () => {
  let parser: CalendarParser;
  afterEach(async () => {
    await parser.onModuleDestroy();
  });

  it('answers sorted busy intervals, skips our own bookings, and rejects with the library’s errors', async () => {
    parser = new CalendarParser({ calendarTimeoutMs: 10_000 } as AppConfig);
    const weekly = event('DTSTART;TZID=Europe/Berlin:20270322T090000', 'DURATION:PT1H', 'RRULE:FREQ=WEEKLY;COUNT=2');
    const own = event('DTSTART:20270301T090000Z', 'DURATION:PT1H').replace('UID:e@test', 'UID:bkg_0123456789abcdefghijklmn');
    const busy = await parser.busy({ texts: [weekly, own, 'not a calendar'], eachOnItsOwn: true, ...WINDOW });
    expect(busy.map((b) => new Date(b.start).toISOString())).toEqual(['2027-03-22T08:00:00.000Z', '2027-03-29T07:00:00.000Z']);
    await expect(parser.busy({ texts: ['not a calendar'], eachOnItsOwn: false, ...WINDOW })).rejects.toBeInstanceOf(CalendarParseError);
    await expect(
      parser.busy({ texts: [event('DTSTART:20270301T000000Z', 'DURATION:PT1S', 'RRULE:FREQ=SECONDLY')], eachOnItsOwn: false, ...WINDOW }),
    ).rejects.toBeInstanceOf(CalendarTooLargeError);
  });

  it('ends a parse that runs past CALENDAR_TIMEOUT_MS, and parses again on a fresh thread', async () => {
    parser = new CalendarParser({ calendarTimeoutMs: 30_000 } as AppConfig);
    const quick = event('DTSTART:20270301T090000Z', 'DURATION:PT1H');
    await parser.busy({ texts: [quick], eachOnItsOwn: false, ...WINDOW }); // the thread is up
    (parser as unknown as { config: { calendarTimeoutMs: number } }).config.calendarTimeoutMs = 20;
    const error = await parser.busy({ texts: [slow()], eachOnItsOwn: false, ...WINDOW }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CalendarTooLargeError);
    expect((error as Error).message).toBe('reading it took longer than 20 ms');
    (parser as unknown as { config: { calendarTimeoutMs: number } }).config.calendarTimeoutMs = 30_000;
    expect(await parser.busy({ texts: [quick], eachOnItsOwn: false, ...WINDOW })).toHaveLength(1);
  });

  it('counts CALENDAR_TIMEOUT_MS from when a new thread is ready, not from its start (loading takes seconds on a busy machine)', async () => {
    parser = new CalendarParser({ calendarTimeoutMs: 100 } as AppConfig);
    const started = performance.now();
    const quick = event('DTSTART:20270301T090000Z', 'DURATION:PT1H');
    expect(await parser.busy({ texts: [quick], eachOnItsOwn: false, ...WINDOW })).toHaveLength(1);
    // The cold thread took longer than the limit to load, and the parse still counted only its own time.
    expect(performance.now() - started).toBeGreaterThan(100);
  });

  it('runs parses side by side and in order of arrival, each answered with its own result', async () => {
    parser = new CalendarParser({ calendarTimeoutMs: 10_000 } as AppConfig);
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        parser.busy({ texts: [event(`DTSTART:2027030${i + 1}T090000Z`, 'DURATION:PT1H')], eachOnItsOwn: false, ...WINDOW }),
      ),
    );
    expect(results.map(([b]) => new Date(b.start).toISOString().slice(0, 10))).toEqual(
      Array.from({ length: 8 }, (_, i) => `2027-03-0${i + 1}`),
    );
  });
});
