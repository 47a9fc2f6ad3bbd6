import { seriesStarts, type SeriesRule } from './series.js';

const iso = (starts: number[]): string[] => starts.map((start) => new Date(start).toISOString().replace(':00.000Z', 'Z'));

describe('seriesStarts (api-rules.md § Seats and series: occurrences keep the first one’s wall-clock time)', () => {
  const cases: [string, string, string, SeriesRule, string[]][] = [
    [
      'weekly 10:00 in New York across the March change',
      '2027-03-01T15:00:00Z',
      'America/New_York',
      { frequency: 'weekly', interval: 1, count: 4 },
      ['2027-03-01T15:00Z', '2027-03-08T15:00Z', '2027-03-15T14:00Z', '2027-03-22T14:00Z'],
    ],
    [
      'weekly 10:00 in New York across the November change',
      '2027-10-25T14:00:00Z',
      'America/New_York',
      { frequency: 'weekly', interval: 1, count: 3 },
      ['2027-10-25T14:00Z', '2027-11-01T14:00Z', '2027-11-08T15:00Z'],
    ],
    [
      'weekly 10:00 in Berlin across the March change',
      '2027-03-22T09:00:00Z',
      'Europe/Berlin',
      { frequency: 'weekly', interval: 1, count: 3 },
      ['2027-03-22T09:00Z', '2027-03-29T08:00Z', '2027-04-05T08:00Z'],
    ],
    [
      'weekly 10:00 in Berlin across the October change',
      '2027-10-25T08:00:00Z',
      'Europe/Berlin',
      { frequency: 'weekly', interval: 1, count: 3 },
      ['2027-10-25T08:00Z', '2027-11-01T09:00Z', '2027-11-08T09:00Z'],
    ],
    [
      'fortnightly keeps the weekday',
      '2027-06-07T08:00:00Z',
      'Europe/Berlin',
      { frequency: 'weekly', interval: 2, count: 3 },
      ['2027-06-07T08:00Z', '2027-06-21T08:00Z', '2027-07-05T08:00Z'],
    ],
    [
      'monthly on the 31st skips the months without one',
      '2027-01-31T10:00:00Z',
      'UTC',
      { frequency: 'monthly', interval: 1, count: 5 },
      ['2027-01-31T10:00Z', '2027-03-31T10:00Z', '2027-05-31T10:00Z', '2027-07-31T10:00Z', '2027-08-31T10:00Z'],
    ],
    [
      'daily every third day across the March change in New York',
      '2027-03-12T15:00:00Z',
      'America/New_York',
      { frequency: 'daily', interval: 3, count: 3 },
      ['2027-03-12T15:00Z', '2027-03-15T14:00Z', '2027-03-18T14:00Z'],
    ],
    [
      'a 02:30 start falls into the spring gap and is read with the offset before it',
      '2027-03-07T07:30:00Z',
      'America/New_York',
      { frequency: 'weekly', interval: 1, count: 2 },
      ['2027-03-07T07:30Z', '2027-03-14T07:30Z'],
    ],
  ];

  it.each(cases)('%s', (_name, first, zone, rule, expected) => {
    expect(iso(seriesStarts(Date.parse(first), zone, rule))).toEqual(expected);
  });
});
