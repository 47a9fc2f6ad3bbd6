import {
  computeSlots,
  formatInstantInZone,
  localDateTimeToInstant,
  type BusyInterval,
  type DateOverride,
  type EventTypeRules,
  type HostAvailability,
  type Slot,
  type SlotQuery,
} from './index.js';

/*
 * Readable cases: a zone, a week or a DST night, and the expected slot starts written as local
 * wall-clock times with their offset ('2027-03-14T03:00-04:00'), so each row can be checked by hand.
 * 2027 transitions: US Mar 14 (02:00→03:00) and Nov 7 (02:00→01:00); EU Mar 28 (02:00→03:00 CET)
 * and Oct 31 (03:00→02:00 CEST); Lord Howe Oct 3 (02:00→02:30) and Apr 4 (02:00→01:30);
 * Chatham Sep 26 (02:45→03:45) and Apr 4 (03:45→02:45).
 */

const RULES: EventTypeRules = {
  durationMinutes: 60,
  slotIntervalMinutes: null,
  bufferBeforeMinutes: 0,
  bufferAfterMinutes: 0,
  minimumNoticeHours: 0,
  bookingWindowDays: 730,
  maxBookingsPerDay: null,
  schedulingType: 'one_on_one',
  hostUserIds: ['usr_a'],
};

const LONG_AGO = Date.UTC(2026, 0, 1);
const MON_TO_FRI = [1, 2, 3, 4, 5];

/** '09:00-12:00' style windows on the given weekdays (0 = Sunday). */
function host(
  userId: string,
  timezone: string,
  weekdays: readonly number[],
  windows: readonly string[],
  extra: Partial<HostAvailability> = {},
): HostAvailability {
  return {
    userId,
    schedule: { timezone, days: weekdays.map((dayOfWeek) => ({ dayOfWeek, windows: windows.map(window) })) },
    overrides: {},
    busy: [],
    bookingsPerDate: {},
    lastBookedAt: null,
    ...extra,
  };
}

function window(text: string): { startTime: string; endTime: string } {
  const [startTime, endTime] = text.split('-');
  return { startTime, endTime };
}

function busyAt(zone: string, date: string, from: string, to: string, own: Partial<BusyInterval> = {}): BusyInterval {
  return {
    start: localDateTimeToInstant(date, from, zone),
    end: localDateTimeToInstant(date, to, zone),
    bufferBeforeMinutes: 0,
    bufferAfterMinutes: 0,
    ...own,
  };
}

/** '2027-03-01T09:00:00.000+01:00' → '2027-03-01T09:00+01:00'. */
function wall(instant: number, zone: string): string {
  return formatInstantInZone(instant, zone).replace(':00.000', '');
}

function starts(slots: readonly Slot[], zone: string): string[] {
  return slots.map((slot) => wall(slot.start, zone));
}

function query(
  hosts: readonly HostAvailability[],
  startDate: string,
  endDate: string,
  timeZone: string,
  rules: Partial<EventTypeRules> = {},
  now = LONG_AGO,
): SlotQuery {
  return { rules: { ...RULES, ...rules }, hosts, now, range: { startDate, endDate, timeZone } };
}

describe('computeSlots: a plain week', () => {
  it('Europe/Berlin, Mon–Fri 09:00–12:00, 60-minute meetings', () => {
    const slots = computeSlots(
      query([host('usr_a', 'Europe/Berlin', MON_TO_FRI, ['09:00-12:00'])], '2027-03-01', '2027-03-07', 'Europe/Berlin'),
    );
    expect(starts(slots, 'Europe/Berlin')).toEqual(
      ['01', '02', '03', '04', '05'].flatMap((day) => ['09:00', '10:00', '11:00'].map((time) => `2027-03-${day}T${time}+01:00`)),
    );
    expect(slots[0]).toEqual({ start: Date.UTC(2027, 2, 1, 8), end: Date.UTC(2027, 2, 1, 9), hostUserId: 'usr_a' });
  });

  it('Asia/Kolkata (+05:30), 45-minute meetings stepping by their duration, range asked in UTC', () => {
    const slots = computeSlots(
      query([host('usr_a', 'Asia/Kolkata', [1], ['10:00-12:00'])], '2027-03-01', '2027-03-07', 'UTC', {
        durationMinutes: 45,
      }),
    );
    expect(starts(slots, 'Asia/Kolkata')).toEqual(['2027-03-01T10:00+05:30', '2027-03-01T10:45+05:30']);
    expect(starts(slots, 'UTC')).toEqual(['2027-03-01T04:30Z', '2027-03-01T05:15Z']);
  });

  it.each([
    { interval: 30, duration: 60, expected: ['09:00', '09:30', '10:00', '10:30', '11:00'] },
    { interval: 90, duration: 30, expected: ['09:00', '10:30'] },
    { interval: 90, duration: 60, expected: ['09:00', '10:30'] },
    { interval: null, duration: 90, expected: ['09:00', '10:30'] },
  ])('slot interval $interval for a $duration-minute meeting in 09:00–12:00', ({ interval, duration, expected }) => {
    const slots = computeSlots(
      query([host('usr_a', 'UTC', [1], ['09:00-12:00'])], '2027-03-01', '2027-03-01', 'UTC', {
        durationMinutes: duration,
        slotIntervalMinutes: interval,
      }),
    );
    expect(starts(slots, 'UTC')).toEqual(expected.map((time) => `2027-03-01T${time}Z`));
  });

  it('a window ending at 24:00 runs to the next local midnight', () => {
    const slots = computeSlots(query([host('usr_a', 'Europe/Berlin', [5], ['22:00-24:00'])], '2027-03-05', '2027-03-06', 'Europe/Berlin'));
    expect(starts(slots, 'Europe/Berlin')).toEqual(['2027-03-05T22:00+01:00', '2027-03-05T23:00+01:00']);
  });

  it('a host without a schedule has no slots', () => {
    const slots = computeSlots(query([{ ...host('usr_a', 'UTC', [], []), schedule: null }], '2027-03-01', '2027-03-07', 'UTC'));
    expect(slots).toEqual([]);
  });
});

describe('computeSlots: DST nights step in elapsed time from the window start', () => {
  it.each([
    {
      name: 'New York spring forward, window 01:00–04:00 holds two hours',
      zone: 'America/New_York',
      date: '2027-03-14',
      windows: ['01:00-04:00'],
      duration: 60,
      expected: ['2027-03-14T01:00-05:00', '2027-03-14T03:00-04:00'],
    },
    {
      name: 'New York, window starting inside the gap (02:30) starts when the gap ends (03:00)',
      zone: 'America/New_York',
      date: '2027-03-14',
      windows: ['02:30-05:00'],
      duration: 60,
      expected: ['2027-03-14T03:00-04:00', '2027-03-14T04:00-04:00'],
    },
    {
      name: 'New York, window ending inside the gap (02:30) ends when the gap ends',
      zone: 'America/New_York',
      date: '2027-03-14',
      windows: ['00:00-02:30'],
      duration: 30,
      expected: ['2027-03-14T00:00-05:00', '2027-03-14T00:30-05:00', '2027-03-14T01:00-05:00', '2027-03-14T01:30-05:00'],
    },
    {
      name: 'New York fall back, window 00:00–03:00 holds four hours',
      zone: 'America/New_York',
      date: '2027-11-07',
      windows: ['00:00-03:00'],
      duration: 60,
      expected: ['2027-11-07T00:00-04:00', '2027-11-07T01:00-04:00', '2027-11-07T01:00-05:00', '2027-11-07T02:00-05:00'],
    },
    {
      name: 'New York, window starting in the repeated hour starts at its first occurrence',
      zone: 'America/New_York',
      date: '2027-11-07',
      windows: ['01:30-03:00'],
      duration: 30,
      expected: [
        '2027-11-07T01:30-04:00',
        '2027-11-07T01:00-05:00',
        '2027-11-07T01:30-05:00',
        '2027-11-07T02:00-05:00',
        '2027-11-07T02:30-05:00',
      ],
    },
    {
      name: 'New York, window ending in the repeated hour ends at its first occurrence',
      zone: 'America/New_York',
      date: '2027-11-07',
      windows: ['00:00-01:30'],
      duration: 30,
      expected: ['2027-11-07T00:00-04:00', '2027-11-07T00:30-04:00', '2027-11-07T01:00-04:00'],
    },
    {
      name: 'Berlin spring forward, window 01:00–04:00 holds two hours',
      zone: 'Europe/Berlin',
      date: '2027-03-28',
      windows: ['01:00-04:00'],
      duration: 60,
      expected: ['2027-03-28T01:00+01:00', '2027-03-28T03:00+02:00'],
    },
    {
      name: 'Berlin, window starting inside the gap',
      zone: 'Europe/Berlin',
      date: '2027-03-28',
      windows: ['02:30-04:00'],
      duration: 60,
      expected: ['2027-03-28T03:00+02:00'],
    },
    {
      name: 'Berlin fall back, window 02:00–04:00 holds three hours',
      zone: 'Europe/Berlin',
      date: '2027-10-31',
      windows: ['02:00-04:00'],
      duration: 60,
      expected: ['2027-10-31T02:00+02:00', '2027-10-31T02:00+01:00', '2027-10-31T03:00+01:00'],
    },
    {
      name: 'Berlin, window ending in the repeated hour',
      zone: 'Europe/Berlin',
      date: '2027-10-31',
      windows: ['01:00-02:30'],
      duration: 30,
      expected: ['2027-10-31T01:00+02:00', '2027-10-31T01:30+02:00', '2027-10-31T02:00+02:00'],
    },
    {
      name: 'Lord Howe 30-minute spring forward, window 01:00–04:00 holds 2.5 hours',
      zone: 'Australia/Lord_Howe',
      date: '2027-10-03',
      windows: ['01:00-04:00'],
      duration: 60,
      expected: ['2027-10-03T01:00+10:30', '2027-10-03T02:30+11:00'],
    },
    {
      name: 'Lord Howe 30-minute fall back, window 01:00–03:00 holds 2.5 hours',
      zone: 'Australia/Lord_Howe',
      date: '2027-04-04',
      windows: ['01:00-03:00'],
      duration: 30,
      expected: [
        '2027-04-04T01:00+11:00',
        '2027-04-04T01:30+11:00',
        '2027-04-04T01:30+10:30',
        '2027-04-04T02:00+10:30',
        '2027-04-04T02:30+10:30',
      ],
    },
    {
      name: 'Chatham (+12:45 → +13:45), window 02:00–05:00 holds two hours',
      zone: 'Pacific/Chatham',
      date: '2027-09-26',
      windows: ['02:00-05:00'],
      duration: 60,
      expected: ['2027-09-26T02:00+12:45', '2027-09-26T04:00+13:45'],
    },
    {
      name: 'Santiago falls back at midnight, so 22:00–24:00 on Apr 3 holds three hours',
      zone: 'America/Santiago',
      date: '2027-04-03',
      windows: ['22:00-24:00'],
      duration: 60,
      expected: ['2027-04-03T22:00-03:00', '2027-04-03T23:00-03:00', '2027-04-03T23:00-04:00'],
    },
    {
      name: 'Havana skips midnight, so a window from 00:00 starts at 01:00',
      zone: 'America/Havana',
      date: '2027-03-14',
      windows: ['00:00-03:00'],
      duration: 60,
      expected: ['2027-03-14T01:00-04:00', '2027-03-14T02:00-04:00'],
    },
  ])('$name', ({ zone, date, windows, duration, expected }) => {
    const dayOfWeek = new Date(`${date}T12:00:00Z`).getUTCDay();
    const slots = computeSlots(query([host('usr_a', zone, [dayOfWeek], windows)], date, date, zone, { durationMinutes: duration }));
    expect(starts(slots, zone)).toEqual(expected);
  });
});

describe('computeSlots: overrides', () => {
  const weekly = host('usr_a', 'Europe/Berlin', MON_TO_FRI, ['09:00-11:00']);

  it.each<{ name: string; overrides: Record<string, DateOverride>; expected: string[] }>([
    { name: 'no override', overrides: {}, expected: ['2027-03-01T09:00', '2027-03-01T10:00'] },
    { name: 'unavailable removes the day', overrides: { '2027-03-01': { type: 'unavailable' } }, expected: [] },
    {
      name: 'custom replaces the weekly hours',
      overrides: { '2027-03-01': { type: 'custom', windows: [window('14:00-15:30')] } },
      expected: ['2027-03-01T14:00'],
    },
    {
      name: 'custom adds hours on a day off (Sunday)',
      overrides: { '2027-02-28': { type: 'custom', windows: [window('10:00-11:00'), window('16:00-17:00')] } },
      expected: ['2027-02-28T10:00', '2027-02-28T16:00', '2027-03-01T09:00', '2027-03-01T10:00'],
    },
  ])('$name', ({ overrides, expected }) => {
    const slots = computeSlots(query([{ ...weekly, overrides }], '2027-02-28', '2027-03-01', 'Europe/Berlin'));
    expect(starts(slots, 'Europe/Berlin')).toEqual(expected.map((time) => `${time}+01:00`));
  });
});

describe('computeSlots: buffers (30-minute meetings every 30 minutes, busy 10:00–11:00 UTC)', () => {
  it.each([
    { name: 'no buffers', rules: {}, own: {}, expected: ['09:00', '09:30', '11:00', '11:30', '12:00', '12:30'] },
    { name: 'our 15 min after', rules: { bufferAfterMinutes: 15 }, own: {}, expected: ['09:00', '11:00', '11:30', '12:00', '12:30'] },
    { name: 'our 15 min before', rules: { bufferBeforeMinutes: 15 }, own: {}, expected: ['09:00', '09:30', '11:30', '12:00', '12:30'] },
    { name: 'its own 30 min before', rules: {}, own: { bufferBeforeMinutes: 30 }, expected: ['09:00', '11:00', '11:30', '12:00', '12:30'] },
    { name: 'its own 30 min after', rules: {}, own: { bufferAfterMinutes: 30 }, expected: ['09:00', '09:30', '11:30', '12:00', '12:30'] },
    {
      name: 'buffers may overlap each other (ours before 15, its after 15, 15-minute grid)',
      rules: { bufferBeforeMinutes: 15, slotIntervalMinutes: 15 },
      own: { bufferAfterMinutes: 15 },
      expected: ['09:00', '09:15', '09:30', '11:15', '11:30', '11:45', '12:00', '12:15', '12:30'],
    },
  ])('$name', ({ rules, own, expected }) => {
    const busy = [busyAt('UTC', '2027-03-01', '10:00', '11:00', own)];
    const slots = computeSlots(
      query([host('usr_a', 'UTC', [1], ['09:00-13:00'], { busy })], '2027-03-01', '2027-03-01', 'UTC', {
        durationMinutes: 30,
        ...rules,
      }),
    );
    expect(starts(slots, 'UTC')).toEqual(expected.map((time) => `2027-03-01T${time}Z`));
  });

  it('a slot fits exactly between two bookings, buffers included', () => {
    const busy = [busyAt('UTC', '2027-03-01', '09:00', '09:50', { bufferAfterMinutes: 10 }), busyAt('UTC', '2027-03-01', '10:45', '12:00')];
    const slots = computeSlots(
      query([host('usr_a', 'UTC', [1], ['09:00-13:00'], { busy })], '2027-03-01', '2027-03-01', 'UTC', {
        durationMinutes: 30,
        slotIntervalMinutes: 5,
        bufferAfterMinutes: 15,
      }),
    );
    expect(starts(slots, 'UTC')).toEqual([
      '2027-03-01T10:00Z',
      '2027-03-01T12:00Z',
      '2027-03-01T12:05Z',
      '2027-03-01T12:10Z',
      '2027-03-01T12:15Z',
      '2027-03-01T12:20Z',
      '2027-03-01T12:25Z',
      '2027-03-01T12:30Z',
    ]);
  });
});

describe('computeSlots: notice, booking window and daily cap (Berlin, Mon–Fri 09:00–12:00)', () => {
  const berlin = host('usr_a', 'Europe/Berlin', MON_TO_FRI, ['09:00-12:00']);
  const at = (date: string, time: string): number => localDateTimeToInstant(date, time, 'Europe/Berlin');

  it.each([
    {
      name: 'minimum notice of 2 h at 08:10 leaves 11:00',
      rules: { minimumNoticeHours: 2 },
      now: at('2027-03-01', '08:10'),
      expected: ['2027-03-01T11:00'],
    },
    {
      name: 'fractional notice of 1.5 h at 08:30 keeps 10:00 (the limit is inclusive)',
      rules: { minimumNoticeHours: 1.5 },
      now: at('2027-03-01', '08:30'),
      expected: ['2027-03-01T10:00', '2027-03-01T11:00'],
    },
    {
      name: 'no notice: a start equal to now is not in the past',
      rules: {},
      now: at('2027-03-01', '10:00'),
      expected: ['2027-03-01T10:00', '2027-03-01T11:00'],
    },
  ])('$name', ({ rules, now, expected }) => {
    const slots = computeSlots(query([berlin], '2027-03-01', '2027-03-01', 'Europe/Berlin', rules, now));
    expect(starts(slots, 'Europe/Berlin')).toEqual(expected.map((time) => `${time}+01:00`));
  });

  it('a 2-day booking window from Mon 09:00 ends with Wed 09:00 (inclusive)', () => {
    const slots = computeSlots(
      query([berlin], '2027-03-01', '2027-03-07', 'Europe/Berlin', { bookingWindowDays: 2 }, at('2027-03-01', '09:00')),
    );
    expect(starts(slots, 'Europe/Berlin')).toEqual(
      [
        '2027-03-01T09:00',
        '2027-03-01T10:00',
        '2027-03-01T11:00',
        '2027-03-02T09:00',
        '2027-03-02T10:00',
        '2027-03-02T11:00',
        '2027-03-03T09:00',
      ].map((time) => `${time}+01:00`),
    );
  });

  it('a daily cap of 2 closes Tuesday (2 booked) but not Wednesday (1 booked)', () => {
    const capped = { ...berlin, bookingsPerDate: { '2027-03-02': 2, '2027-03-03': 1 } };
    const slots = computeSlots(query([capped], '2027-03-02', '2027-03-03', 'Europe/Berlin', { maxBookingsPerDay: 2 }));
    expect(starts(slots, 'Europe/Berlin')).toEqual(['2027-03-03T09:00+01:00', '2027-03-03T10:00+01:00', '2027-03-03T11:00+01:00']);
  });

  it('the cap counts the host’s local date, not the requested one', () => {
    // Kolkata 00:00–02:00 on Tue Mar 2 is Mon Mar 1 18:30–20:30 UTC.
    const kolkata = host('usr_a', 'Asia/Kolkata', [1, 2], ['00:00-02:00'], { bookingsPerDate: { '2027-03-02': 1 } });
    const slots = computeSlots(query([kolkata], '2027-02-28', '2027-03-02', 'UTC', { maxBookingsPerDay: 1 }));
    expect(starts(slots, 'Asia/Kolkata')).toEqual(['2027-03-01T00:00+05:30', '2027-03-01T01:00+05:30']);
  });
});

describe('computeSlots: the requested zone decides which dates are in range', () => {
  const berlin = host('usr_a', 'Europe/Berlin', [1, 2, 3], ['09:00-12:00']);

  it.each([
    {
      name: 'Los Angeles Tue Mar 2 = [Mar 2 08:00Z, Mar 3 08:00Z): Berlin Tue, not Wed 09:00 (= 08:00Z, excluded end)',
      zone: 'America/Los_Angeles',
      date: '2027-03-02',
      expected: ['2027-03-02T08:00Z', '2027-03-02T09:00Z', '2027-03-02T10:00Z'],
    },
    {
      name: 'Auckland Tue Mar 2 = [Mar 1 11:00Z, Mar 2 11:00Z): only Berlin Tuesday',
      zone: 'Pacific/Auckland',
      date: '2027-03-02',
      expected: ['2027-03-02T08:00Z', '2027-03-02T09:00Z', '2027-03-02T10:00Z'],
    },
    {
      name: 'Kiritimati (+14) Wed Mar 3 = [Mar 2 10:00Z, Mar 3 10:00Z): Berlin Tue 11:00 and Wed 09:00, 10:00',
      zone: 'Pacific/Kiritimati',
      date: '2027-03-03',
      expected: ['2027-03-02T10:00Z', '2027-03-03T08:00Z', '2027-03-03T09:00Z'],
    },
  ])('$name', ({ zone, date, expected }) => {
    const slots = computeSlots(query([berlin], date, date, zone));
    expect(starts(slots, 'UTC')).toEqual(expected);
  });

  it('renders in the requested zone what the host wrote in its own', () => {
    const slots = computeSlots(query([berlin], '2027-03-01', '2027-03-01', 'America/New_York'));
    expect(starts(slots, 'America/New_York')).toEqual(['2027-03-01T03:00-05:00', '2027-03-01T04:00-05:00', '2027-03-01T05:00-05:00']);
  });
});

describe('computeSlots: several hosts', () => {
  const day = '2027-03-01';
  const busy = (from: string, to: string): BusyInterval => busyAt('UTC', day, from, to);

  it('round robin offers a start when any host is free and names the least recently booked free host', () => {
    const hosts = [
      host('usr_a', 'UTC', [1], ['09:00-13:00'], { lastBookedAt: Date.UTC(2027, 1, 10) }),
      host('usr_b', 'UTC', [1], ['09:00-13:00'], { lastBookedAt: null, busy: [busy('10:00', '12:00')] }),
      host('usr_c', 'UTC', [1], ['09:00-13:00'], { lastBookedAt: Date.UTC(2027, 0, 1), busy: [busy('11:00', '13:00')] }),
    ];
    const slots = computeSlots(query(hosts, day, day, 'UTC', { schedulingType: 'round_robin', hostUserIds: ['usr_a', 'usr_b', 'usr_c'] }));
    expect(slots.map((slot) => `${wall(slot.start, 'UTC')} ${slot.hostUserId}`)).toEqual([
      '2027-03-01T09:00Z usr_b', // never booked
      '2027-03-01T10:00Z usr_c', // b busy; c booked longer ago than a
      '2027-03-01T11:00Z usr_a', // b and c busy
      '2027-03-01T12:00Z usr_b',
    ]);
  });

  it('round robin breaks ties by hostUserIds order', () => {
    const hosts = [host('usr_a', 'UTC', [1], ['09:00-10:00']), host('usr_b', 'UTC', [1], ['09:00-10:00'])];
    const slots = computeSlots(query(hosts, day, day, 'UTC', { schedulingType: 'round_robin', hostUserIds: ['usr_b', 'usr_a'] }));
    expect(slots.map((slot) => slot.hostUserId)).toEqual(['usr_b']);
  });

  it('collective keeps only starts that are slots of every host, in any zones, and names the first host', () => {
    const hosts = [
      host('usr_a', 'Europe/Berlin', [1], ['09:00-13:00']),
      host('usr_b', 'Europe/London', [1], ['09:00-13:00'], { busy: [busy('10:30', '11:00')] }),
    ];
    const slots = computeSlots(query(hosts, day, day, 'UTC', { schedulingType: 'collective', hostUserIds: ['usr_b', 'usr_a'] }));
    // Berlin 09–13 is 08–12Z, London 09–13 is 09–13Z; b is busy from 10:30Z.
    expect(slots.map((slot) => `${wall(slot.start, 'UTC')} ${slot.hostUserId}`)).toEqual([
      '2027-03-01T09:00Z usr_b',
      '2027-03-01T11:00Z usr_b',
    ]);
  });

  it('collective needs the grids to meet: 09:00 hourly and 09:30 hourly never do', () => {
    const hosts = [host('usr_a', 'UTC', [1], ['09:00-13:00']), host('usr_b', 'UTC', [1], ['09:30-13:30'])];
    const slots = computeSlots(query(hosts, day, day, 'UTC', { schedulingType: 'collective', hostUserIds: ['usr_a', 'usr_b'] }));
    expect(slots).toEqual([]);
  });

  it('collective with a host that has no schedule has no slots', () => {
    const hosts = [host('usr_a', 'UTC', [1], ['09:00-13:00'])];
    const slots = computeSlots(query(hosts, day, day, 'UTC', { schedulingType: 'collective', hostUserIds: ['usr_a', 'usr_x'] }));
    expect(slots).toEqual([]);
  });
});
