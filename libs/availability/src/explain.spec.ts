import {
  explainStart,
  localDateTimeToInstant,
  type EventTypeRules,
  type HostAvailability,
  type StartQuery,
  type StartVerdict,
  type UnavailableReason,
} from './index.js';

/*
 * One host in Berlin, Mon–Fri 09:00–12:00, hourly 60-minute meetings; "now" is Mon 2027-03-01 08:00.
 * Each row asks about one local start and names the answer GET /availability/check should give.
 */

const ZONE = 'Europe/Berlin';
const at = (date: string, time: string, zone = ZONE): number => localDateTimeToInstant(date, time, zone);

const RULES: EventTypeRules = {
  durationMinutes: 60,
  slotIntervalMinutes: null,
  bufferBeforeMinutes: 0,
  bufferAfterMinutes: 0,
  minimumNoticeHours: 2,
  bookingWindowDays: 14,
  maxBookingsPerDay: 2,
  schedulingType: 'one_on_one',
  hostUserIds: ['usr_a'],
};

function host(userId: string, extra: Partial<HostAvailability> = {}): HostAvailability {
  return {
    userId,
    schedule: {
      timezone: ZONE,
      days: [1, 2, 3, 4, 5].map((dayOfWeek) => ({ dayOfWeek, windows: [{ startTime: '09:00', endTime: '12:00' }] })),
    },
    overrides: { '2027-03-04': { type: 'unavailable' } },
    busy: [{ start: at('2027-03-02', '10:00'), end: at('2027-03-02', '11:00'), bufferBeforeMinutes: 0, bufferAfterMinutes: 0 }],
    bookingsPerDate: { '2027-03-03': 2 },
    lastBookedAt: null,
    ...extra,
  };
}

function input(hosts: readonly HostAvailability[], rules: Partial<EventTypeRules> = {}): StartQuery {
  return { rules: { ...RULES, ...rules }, hosts, now: at('2027-03-01', '08:00') };
}

const free = (hostUserId: string): StartVerdict => ({ available: true, hostUserId });
const no = (reason: UnavailableReason): StartVerdict => ({ available: false, reason });

describe('explainStart: one host, every reason', () => {
  it.each([
    { when: 'Mon 10:00 (bookable)', start: at('2027-03-01', '10:00'), expected: free('usr_a') },
    { when: 'Mon 07:00, before now', start: at('2027-03-01', '07:00'), expected: no('in_the_past') },
    { when: 'Mon 09:00, within the 2 h notice', start: at('2027-03-01', '09:00'), expected: no('minimum_notice') },
    { when: 'Tue 2027-03-16 09:00, past the 14-day window', start: at('2027-03-16', '09:00'), expected: no('outside_booking_window') },
    { when: 'Sat 10:00, off-hours', start: at('2027-03-06', '10:00'), expected: no('outside_availability') },
    { when: 'Mon 10:30, off the hourly grid', start: at('2027-03-01', '10:30'), expected: no('outside_availability') },
    { when: 'Mon 11:30, would end after the window', start: at('2027-03-01', '11:30'), expected: no('outside_availability') },
    { when: 'Thu 10:00, unavailable override', start: at('2027-03-04', '10:00'), expected: no('outside_availability') },
    { when: 'Tue 10:00, overlaps a booking', start: at('2027-03-02', '10:00'), expected: no('already_booked') },
    { when: 'Tue 11:00, touches the booking (half-open)', start: at('2027-03-02', '11:00'), expected: free('usr_a') },
    { when: 'Wed 10:00, two bookings already that day', start: at('2027-03-03', '10:00'), expected: no('daily_limit_reached') },
  ])('$when', ({ start, expected }) => {
    expect(explainStart(input([host('usr_a')]), start)).toEqual(expected);
  });

  it.each([
    {
      name: 'in the past beats off-hours',
      start: at('2027-02-27', '10:00'),
      expected: no('in_the_past'),
    },
    {
      name: 'booked beats the daily limit',
      start: at('2027-03-03', '10:00'),
      busy: [{ start: at('2027-03-03', '10:00'), end: at('2027-03-03', '11:00'), bufferBeforeMinutes: 0, bufferAfterMinutes: 0 }],
      expected: no('already_booked'),
    },
    {
      name: 'a booking’s own buffer counts as booked',
      start: at('2027-03-05', '10:00'),
      busy: [{ start: at('2027-03-05', '09:00'), end: at('2027-03-05', '09:45'), bufferBeforeMinutes: 0, bufferAfterMinutes: 20 }],
      expected: no('already_booked'),
    },
  ])('priority: $name', ({ start, busy, expected }) => {
    expect(explainStart(input([host('usr_a', busy === undefined ? {} : { busy })]), start)).toEqual(expected);
  });

  it.each([
    { when: 'Fri 10:00, inside a calendar busy time', start: at('2027-03-05', '10:00'), buffers: {}, expected: no('calendar_conflict') },
    { when: 'Fri 11:00, right after it (half-open)', start: at('2027-03-05', '11:00'), buffers: {}, expected: free('usr_a') },
    { when: 'Fri 09:00, right before it', start: at('2027-03-05', '09:00'), buffers: {}, expected: free('usr_a') },
    {
      when: 'Fri 11:00 with a 15-minute buffer before: the padded slot overlaps',
      start: at('2027-03-05', '11:00'),
      buffers: { bufferBeforeMinutes: 15 },
      expected: no('calendar_conflict'),
    },
    {
      when: 'Fri 09:00 with a 10-minute buffer after: the padded slot overlaps',
      start: at('2027-03-05', '09:00'),
      buffers: { bufferAfterMinutes: 10 },
      expected: no('calendar_conflict'),
    },
  ])('calendar busy times: $when', ({ start, buffers, expected }) => {
    const externalBusy = [{ start: at('2027-03-05', '10:00'), end: at('2027-03-05', '11:00') }];
    expect(explainStart(input([host('usr_a', { externalBusy })], buffers), start)).toEqual(expected);
  });

  it('a booking is reported before a calendar conflict, a calendar conflict before the daily limit', () => {
    const externalBusy = [
      { start: at('2027-03-02', '10:00'), end: at('2027-03-02', '11:00') },
      { start: at('2027-03-03', '10:00'), end: at('2027-03-03', '11:00') },
    ];
    expect(explainStart(input([host('usr_a', { externalBusy })]), at('2027-03-02', '10:00'))).toEqual(no('already_booked'));
    expect(explainStart(input([host('usr_a', { externalBusy })]), at('2027-03-03', '10:00'))).toEqual(no('calendar_conflict'));
  });

  it('round robin skips a host busy in its calendar; collective needs every host free', () => {
    const busyB = host('usr_b', { busy: [], externalBusy: [{ start: at('2027-03-05', '10:00'), end: at('2027-03-05', '11:00') }] });
    const a = host('usr_a', { busy: [] });
    const start = at('2027-03-05', '10:00');
    expect(explainStart(input([busyB, a], { schedulingType: 'round_robin', hostUserIds: ['usr_b', 'usr_a'] }), start)).toEqual(
      free('usr_a'),
    );
    expect(explainStart(input([a, busyB], { schedulingType: 'collective', hostUserIds: ['usr_a', 'usr_b'] }), start)).toEqual(
      no('calendar_conflict'),
    );
  });

  it('New York DST: grid starts are counted in elapsed time', () => {
    const sundays = (startTime: string, endTime: string): HostAvailability =>
      host('usr_a', { schedule: { timezone: 'America/New_York', days: [{ dayOfWeek: 0, windows: [{ startTime, endTime }] }] } });
    const rules = { minimumNoticeHours: 0, bookingWindowDays: 365 };
    // Nov 7, 00:00–03:00 holds four hours: 04:00Z, 05:00Z, 06:00Z (the second 01:00, EST), 07:00Z.
    expect(explainStart(input([sundays('00:00', '03:00')], rules), Date.parse('2027-11-07T06:00:00Z'))).toEqual(free('usr_a'));
    expect(explainStart(input([sundays('00:00', '03:00')], rules), Date.parse('2027-11-07T06:30:00Z'))).toEqual(no('outside_availability'));
    // Mar 14, 00:00–02:30 ends when the gap ends, 03:00 EDT (07:00Z): 01:00 EST fits, 03:00 EDT does not.
    expect(explainStart(input([sundays('00:00', '02:30')], rules), Date.parse('2027-03-14T06:00:00Z'))).toEqual(free('usr_a'));
    expect(explainStart(input([sundays('00:00', '02:30')], rules), Date.parse('2027-03-14T07:00:00Z'))).toEqual(no('outside_availability'));
  });

  it('a host without schedule, or no host at all, is outside availability (after the time rules)', () => {
    const start = at('2027-03-01', '10:00');
    expect(explainStart(input([host('usr_a', { schedule: null })]), start)).toEqual(no('outside_availability'));
    expect(explainStart(input([], { hostUserIds: [] }), start)).toEqual(no('outside_availability'));
    expect(explainStart(input([], { hostUserIds: [] }), at('2027-03-01', '07:00'))).toEqual(no('in_the_past'));
  });
});

describe('explainStart: several hosts', () => {
  const offHours = { overrides: { '2027-03-02': { type: 'unavailable' as const } } };
  const tuesday10 = at('2027-03-02', '10:00');
  const tuesday11 = at('2027-03-02', '11:00');

  it.each([
    {
      name: 'round robin, both free: the never-booked host',
      type: 'round_robin' as const,
      start: tuesday11,
      hosts: [host('usr_a', { lastBookedAt: Date.UTC(2027, 0, 1) }), host('usr_b')],
      expected: free('usr_b'),
    },
    {
      name: 'round robin, both free and booked: the one booked longer ago',
      type: 'round_robin' as const,
      start: tuesday11,
      hosts: [host('usr_a', { lastBookedAt: Date.UTC(2027, 1, 1) }), host('usr_b', { lastBookedAt: Date.UTC(2027, 0, 1) })],
      expected: free('usr_b'),
    },
    {
      name: 'round robin, a busy and b off: the reason of the host that got furthest (booked)',
      type: 'round_robin' as const,
      start: tuesday10,
      hosts: [host('usr_a'), host('usr_b', offHours)],
      expected: no('already_booked'),
    },
    {
      name: 'round robin, only b free',
      type: 'round_robin' as const,
      start: tuesday10,
      hosts: [host('usr_a'), host('usr_b', { busy: [] })],
      expected: free('usr_b'),
    },
    {
      name: 'collective, all free: the first host',
      type: 'collective' as const,
      start: tuesday11,
      hosts: [host('usr_a'), host('usr_b')],
      expected: free('usr_a'),
    },
    {
      name: 'collective, b busy: booked',
      type: 'collective' as const,
      start: tuesday10,
      hosts: [host('usr_a', { busy: [] }), host('usr_b')],
      expected: no('already_booked'),
    },
    {
      name: 'collective, a booked and b off: the first failing reason (off-hours)',
      type: 'collective' as const,
      start: tuesday10,
      hosts: [host('usr_a'), host('usr_b', offHours)],
      expected: no('outside_availability'),
    },
  ])('$name', ({ type, start, hosts, expected }) => {
    expect(explainStart(input(hosts, { schedulingType: type, hostUserIds: ['usr_a', 'usr_b'] }), start)).toEqual(expected);
  });
});

describe('explainStart: holds', () => {
  const hold = { start: at('2027-03-01', '11:00'), end: at('2027-03-01', '12:00'), bufferBeforeMinutes: 0, bufferAfterMinutes: 0 };
  const held = [{ ...hold, expiresAt: at('2027-03-01', '08:10') }];

  it.each([
    { when: 'Mon 11:00, held', hosts: [host('usr_a', { held })], start: at('2027-03-01', '11:00'), expected: no('held') },
    { when: 'Mon 10:00, beside the hold', hosts: [host('usr_a', { held })], start: at('2027-03-01', '10:00'), expected: free('usr_a') },
    {
      when: 'Tue 10:00, booked and held: the booking is named first',
      hosts: [host('usr_a', { held: [{ ...held[0], start: at('2027-03-02', '10:00'), end: at('2027-03-02', '11:00') }] })],
      start: at('2027-03-02', '10:00'),
      expected: no('already_booked'),
    },
    {
      when: 'round robin, Mon 11:00 held for usr_a: usr_b gets it',
      hosts: [host('usr_a', { held }), host('usr_b')],
      start: at('2027-03-01', '11:00'),
      expected: free('usr_b'),
      rules: { schedulingType: 'round_robin' as const, hostUserIds: ['usr_a', 'usr_b'] },
    },
    {
      when: 'collective, Mon 11:00 held for usr_b',
      hosts: [host('usr_a'), host('usr_b', { held })],
      start: at('2027-03-01', '11:00'),
      expected: no('held'),
      rules: { schedulingType: 'collective' as const, hostUserIds: ['usr_a', 'usr_b'] },
    },
  ])('$when', ({ hosts, start, expected, rules }) => {
    expect(explainStart(input(hosts, rules), start)).toEqual(expected);
  });
});
