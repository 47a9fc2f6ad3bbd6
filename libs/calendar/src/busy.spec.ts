import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { busyFromICalendar, CalendarParseError, CalendarTooLargeError, type BusyOptions } from './busy.js';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');
const fixture = (name: string): string => readFileSync(join(FIXTURES, name), 'utf8');

const WINDOW = { from: Date.parse('2027-01-01T00:00:00Z'), to: Date.parse('2030-01-01T00:00:00Z') };

/** One VCALENDAR around `events` (lines), CRLF as RFC 5545 writes it. */
function calendar(...events: string[][]): string {
  const lines = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//test//EN'];
  events.forEach((event, i) => lines.push('BEGIN:VEVENT', `UID:event-${i}@test`, 'DTSTAMP:20270101T000000Z', ...event, 'END:VEVENT'));
  return [...lines, 'END:VCALENDAR', ''].join('\r\n');
}

function busy(text: string, options: Partial<BusyOptions> = {}): [string, string][] {
  return busyFromICalendar(text, { timeZone: 'UTC', ...WINDOW, ...options }).map((i) => [
    new Date(i.start).toISOString().replace(':00.000Z', 'Z'),
    new Date(i.end).toISOString().replace(':00.000Z', 'Z'),
  ]);
}

describe('busyFromICalendar: realistic feeds', () => {
  it('Google: weekly in Europe/Berlin across DST, EXDATE, a moved instance, a two-day all-day event in the member’s zone, free and cancelled events', () => {
    expect(busy(fixture('google-weekly.ics'), { timeZone: 'America/New_York' })).toEqual([
      ['2027-03-15T08:00Z', '2027-03-15T09:00Z'], // 09:00 CET
      ['2027-03-31T12:00Z', '2027-03-31T13:00Z'], // the 29th (09:00 CEST) moved to the 31st, 14:00 CEST
      ['2027-04-01T04:00Z', '2027-04-03T04:00Z'], // 1–2 April, whole days in New York
      ['2027-04-05T07:00Z', '2027-04-05T08:00Z'], // 09:00 CEST
    ]);
  });

  it('Outlook: Windows zone names, tentative is busy, X-MICROSOFT-CDO-BUSYSTATUS:FREE is not, a custom VTIMEZONE', () => {
    expect(busy(fixture('outlook-windows-zone.ics'))).toEqual([
      ['2027-03-22T07:00Z', '2027-03-22T07:30Z'],
      ['2027-03-23T07:00Z', '2027-03-23T08:00Z'],
      ['2027-03-25T07:00Z', '2027-03-25T08:00Z'],
    ]);
  });
  it('iCloud: monthly on the last Friday across New York’s fall change, an all-day trip in the member’s zone, a transparent birthday, floating time, alarms', () => {
    expect(busy(fixture('icloud-monthly.ics'), { timeZone: 'America/New_York' })).toEqual([
      ['2027-09-24T20:00Z', '2027-09-24T21:00Z'], // 16:00 EDT
      ['2027-10-14T04:00Z', '2027-10-16T04:00Z'], // 14–15 October, whole days in New York
      ['2027-10-20T16:00Z', '2027-10-20T16:45Z'], // floating 12:00 read in the member's zone
      ['2027-10-29T20:00Z', '2027-10-29T21:00Z'], // 16:00 EDT
      ['2027-11-26T21:00Z', '2027-11-26T22:00Z'], // 16:00 EST, after 7 November
      ['2027-12-31T21:00Z', '2027-12-31T22:00Z'], // UNTIL 23:59:59Z includes the last Friday of the year
    ]);
  });

  it('Nextcloud: weekly across Berlin’s fall change with an EXDATE list and an RDATE, every other day until, private is busy, our own booking and tasks are not', () => {
    const ownBooking = (uid: string): boolean => /^bkg_[0-9A-Za-z]{24}$/.test(uid);
    expect(busy(fixture('nextcloud-weekly.ics'), { timeZone: 'Europe/Berlin', ignoreUid: ownBooking })).toEqual([
      ['2027-10-18T07:00Z', '2027-10-18T07:30Z'], // 09:00 CEST
      ['2027-10-20T10:00Z', '2027-10-20T10:30Z'],
      ['2027-10-21T13:00Z', '2027-10-21T14:00Z'], // CLASS:PRIVATE
      ['2027-10-22T10:00Z', '2027-10-22T10:30Z'],
      ['2027-10-24T10:00Z', '2027-10-24T10:30Z'],
      ['2027-10-25T07:00Z', '2027-10-25T07:30Z'], // 09:00 CEST
      ['2027-10-26T10:00Z', '2027-10-26T10:30Z'], // the last before UNTIL
      ['2027-11-01T08:00Z', '2027-11-01T08:30Z'], // 09:00 CET: the wall clock holds
      ['2027-11-04T13:00Z', '2027-11-04T13:30Z'], // the RDATE, 14:00 CET, the series' 30 minutes
    ]);
  });

  it('Proton: an IANA TZID without a VTIMEZONE across Zurich’s spring change, a cancelled instance, UTC and all-day events', () => {
    expect(busy(fixture('proton-weekly.ics'), { timeZone: 'Europe/Zurich' })).toEqual([
      ['2027-03-22T17:00Z', '2027-03-22T18:00Z'], // 18:00 CET; the 29th is cancelled
      ['2027-04-01T10:00Z', '2027-04-01T11:30Z'],
      ['2027-04-01T22:00Z', '2027-04-02T22:00Z'], // 2 April, a whole day in Zurich
      ['2027-04-05T16:00Z', '2027-04-05T17:00Z'], // 18:00 CEST
      ['2027-04-12T16:00Z', '2027-04-12T17:00Z'],
    ]);
  });
});

describe('busyFromICalendar: rules', () => {
  it.each<[string, string[][], Partial<BusyOptions>, [string, string][]]>([
    [
      'weekly 09:00 New York keeps its wall clock across the March change',
      [['DTSTART;TZID=America/New_York:20270301T090000', 'DTEND;TZID=America/New_York:20270301T093000', 'RRULE:FREQ=WEEKLY;COUNT=3']],
      {},
      [
        ['2027-03-01T14:00Z', '2027-03-01T14:30Z'],
        ['2027-03-08T14:00Z', '2027-03-08T14:30Z'],
        ['2027-03-15T13:00Z', '2027-03-15T13:30Z'],
      ],
    ],
    [
      'UNTIL in UTC bounds a zoned daily event inclusively',
      [['DTSTART;TZID=Europe/Berlin:20270326T090000', 'DURATION:PT1H', 'RRULE:FREQ=DAILY;UNTIL=20270329T070000Z']],
      {},
      [
        ['2027-03-26T08:00Z', '2027-03-26T09:00Z'],
        ['2027-03-27T08:00Z', '2027-03-27T09:00Z'],
        ['2027-03-28T07:00Z', '2027-03-28T08:00Z'],
        ['2027-03-29T07:00Z', '2027-03-29T08:00Z'],
      ],
    ],
    [
      'floating time is read in the member’s zone',
      [['DTSTART:20270310T100000', 'DTEND:20270310T110000']],
      { timeZone: 'Asia/Tokyo' },
      [['2027-03-10T01:00Z', '2027-03-10T02:00Z']],
    ],
    ['DURATION', [['DTSTART:20270310T100000Z', 'DURATION:PT1H30M']], {}, [['2027-03-10T10:00Z', '2027-03-10T11:30Z']]],
    [
      'monthly on the last Friday',
      [['DTSTART:20270129T150000Z', 'DTEND:20270129T160000Z', 'RRULE:FREQ=MONTHLY;BYDAY=-1FR;COUNT=3']],
      {},
      [
        ['2027-01-29T15:00Z', '2027-01-29T16:00Z'],
        ['2027-02-26T15:00Z', '2027-02-26T16:00Z'],
        ['2027-03-26T15:00Z', '2027-03-26T16:00Z'],
      ],
    ],
    [
      'yearly every other year',
      [['DTSTART:20270601T120000Z', 'DTEND:20270601T130000Z', 'RRULE:FREQ=YEARLY;INTERVAL=2;COUNT=2']],
      {},
      [
        ['2027-06-01T12:00Z', '2027-06-01T13:00Z'],
        ['2029-06-01T12:00Z', '2029-06-01T13:00Z'],
      ],
    ],
    [
      'every other week on Tuesday and Thursday until a date',
      [['DTSTART:20270302T080000Z', 'DTEND:20270302T083000Z', 'RRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=TU,TH;UNTIL=20270318']],
      {},
      [
        ['2027-03-02T08:00Z', '2027-03-02T08:30Z'],
        ['2027-03-04T08:00Z', '2027-03-04T08:30Z'],
        ['2027-03-16T08:00Z', '2027-03-16T08:30Z'],
        ['2027-03-18T08:00Z', '2027-03-18T08:30Z'],
      ],
    ],
    [
      'daily at 09:00 and 15:00 (BYHOUR)',
      [['DTSTART:20270302T090000Z', 'DURATION:PT15M', 'RRULE:FREQ=DAILY;BYHOUR=9,15;COUNT=3']],
      {},
      [
        ['2027-03-02T09:00Z', '2027-03-02T09:15Z'],
        ['2027-03-02T15:00Z', '2027-03-02T15:15Z'],
        ['2027-03-03T09:00Z', '2027-03-03T09:15Z'],
      ],
    ],
    [
      'RDATE adds instances, a PERIOD with its own end',
      [
        [
          'DTSTART:20270302T090000Z',
          'DTEND:20270302T100000Z',
          'RDATE:20270305T090000Z',
          'RDATE;VALUE=PERIOD:20270306T090000Z/20270306T120000Z',
        ],
      ],
      {},
      [
        ['2027-03-02T09:00Z', '2027-03-02T10:00Z'],
        ['2027-03-05T09:00Z', '2027-03-05T10:00Z'],
        ['2027-03-06T09:00Z', '2027-03-06T12:00Z'],
      ],
    ],
    [
      'an all-day weekly event with a date EXDATE',
      [['DTSTART;VALUE=DATE:20270301', 'RRULE:FREQ=WEEKLY;COUNT=3', 'EXDATE;VALUE=DATE:20270308']],
      { timeZone: 'Europe/Berlin' },
      [
        ['2027-02-28T23:00Z', '2027-03-01T23:00Z'],
        ['2027-03-14T23:00Z', '2027-03-15T23:00Z'],
      ],
    ],
    [
      'a time in the spring-forward gap is read with the offset before it (RFC 5545)',
      [['DTSTART;TZID=America/New_York:20270314T023000', 'DURATION:PT30M']],
      {},
      [['2027-03-14T07:30Z', '2027-03-14T08:00Z']],
    ],
    ['a DATE-TIME without an end is an instant and blocks nothing', [['DTSTART:20270310T100000Z']], {}, []],
    [
      'an unknown TZID falls back to the member’s zone',
      [['DTSTART;TZID=Mars/Olympus:20270310T100000', 'DURATION:PT1H']],
      { timeZone: 'Asia/Tokyo' },
      [['2027-03-10T01:00Z', '2027-03-10T02:00Z']],
    ],
  ])('%s', (_name, events, options, expected) => {
    expect(busy(calendar(...events), options)).toEqual(expected);
  });

  it('a cancelled or transparent override removes its instance', () => {
    const text = calendar(['DTSTART:20270301T090000Z', 'DTEND:20270301T100000Z', 'RRULE:FREQ=DAILY;COUNT=3']).replace(
      'END:VCALENDAR',
      [
        'BEGIN:VEVENT',
        'UID:event-0@test',
        'DTSTAMP:20270101T000000Z',
        'RECURRENCE-ID:20270302T090000Z',
        'DTSTART:20270302T090000Z',
        'DTEND:20270302T100000Z',
        'STATUS:CANCELLED',
        'END:VEVENT',
        'BEGIN:VEVENT',
        'UID:event-0@test',
        'DTSTAMP:20270101T000000Z',
        'RECURRENCE-ID:20270303T090000Z',
        'DTSTART:20270303T090000Z',
        'DTEND:20270303T100000Z',
        'TRANSP:TRANSPARENT',
        'END:VEVENT',
        'END:VCALENDAR',
      ].join('\r\n'),
    );
    expect(busy(text)).toEqual([['2027-03-01T09:00Z', '2027-03-01T10:00Z']]);
  });

  it('leaves out the service’s own bookings by UID', () => {
    const text = calendar(
      ['UID:bkg_0123456789abcdefghijklmn', 'DTSTART:20270310T100000Z', 'DURATION:PT1H'],
      ['DTSTART:20270311T100000Z', 'DURATION:PT1H'],
    );
    // The helper puts its own UID first; the event's UID line wins as the first UID property.
    const own = text.replace('UID:event-0@test\r\n', '');
    expect(busy(own, { ignoreUid: (uid) => uid.startsWith('bkg_') })).toEqual([['2027-03-11T10:00Z', '2027-03-11T11:00Z']]);
  });

  it('returns only what overlaps the window, however long the series runs', () => {
    const text = calendar(['DTSTART:20200101T090000Z', 'DURATION:PT1H', 'RRULE:FREQ=DAILY']);
    const result = busy(text, { from: Date.parse('2027-03-10T09:30:00Z'), to: Date.parse('2027-03-13T00:00:00Z') });
    expect(result).toEqual([
      ['2027-03-10T09:00Z', '2027-03-10T10:00Z'],
      ['2027-03-11T09:00Z', '2027-03-11T10:00Z'],
      ['2027-03-12T09:00Z', '2027-03-12T10:00Z'],
    ]);
  });

  it.each(['', 'hello', '<html><body>Sign in</body></html>', 'BEGIN:VCARD\r\nVERSION:3.0\r\nEND:VCARD\r\n'])(
    'refuses %j as not iCalendar',
    (text) => {
      expect(() => busyFromICalendar(text, { timeZone: 'UTC', ...WINDOW })).toThrow(CalendarParseError);
    },
  );
});

describe('busyFromICalendar: hostile sources are refused in bounded time', () => {
  it.each([
    ['FREQ=SECONDLY without end', [['DTSTART:20270101T000000Z', 'DURATION:PT1S', 'RRULE:FREQ=SECONDLY']]],
    ['FREQ=MINUTELY from long ago', [['DTSTART:19900101T000000Z', 'DURATION:PT1M', 'RRULE:FREQ=MINUTELY']]],
  ])('%s', (_name, events) => {
    const started = performance.now();
    expect(() => busyFromICalendar(calendar(...events), { timeZone: 'UTC', ...WINDOW })).toThrow(CalendarTooLargeError);
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it('a huge COUNT is bounded by the window, not refused', () => {
    const result = busyFromICalendar(calendar(['DTSTART:20270101T090000Z', 'DURATION:PT1H', 'RRULE:FREQ=DAILY;COUNT=10000000']), {
      timeZone: 'UTC',
      from: Date.parse('2027-01-01T00:00:00Z'),
      to: Date.parse('2027-01-11T00:00:00Z'),
    });
    expect(result).toHaveLength(10);
  });

  it('a truncated file is an error, an impossible date is read as ical.js normalises it; neither crashes', () => {
    expect(() => busyFromICalendar('BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nDTSTART:2027', { timeZone: 'UTC', ...WINDOW })).toThrow(
      CalendarParseError,
    );
    const odd = 'BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:x\r\nDTSTART:20271340T250000Z\r\nDURATION:PT1H\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n';
    expect(Array.isArray(busyFromICalendar(odd, { timeZone: 'UTC', ...WINDOW }))).toBe(true);
  });
});
