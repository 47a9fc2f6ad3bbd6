import fc from 'fast-check';
import {
  computeSlots,
  countLoad,
  explainSeries,
  explainStart,
  type EventTypeRules,
  type HostAvailability,
  type HostBookingLimits,
  localDateOf,
  localDateTimeToInstant,
  type StartQuery,
  weekOf,
} from './index.js';

/*
 * Host booking limits (contract § 17): a table a person can check by hand, then generated bookings that never exceed
 * a limit in any zone across DST transitions (2027: US Mar 14 / Nov 7, EU Mar 28 / Oct 31, Lord Howe Oct 3 / Apr 4).
 */

const HOUR = 3_600_000;
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
const ALL_DAY = [0, 1, 2, 3, 4, 5, 6].map((dayOfWeek) => ({ dayOfWeek, windows: [{ startTime: '00:00', endTime: '24:00' }] }));

function host(userId: string, timezone: string, limits: HostBookingLimits | null, starts: number[] = []): HostAvailability {
  return {
    userId,
    schedule: { timezone, days: ALL_DAY },
    overrides: {},
    busy: starts.map((start) => ({ start, end: start + HOUR, bufferBeforeMinutes: 0, bufferAfterMinutes: 0 })),
    bookingsPerDate: {},
    lastBookedAt: null,
    bookingLimits: limits && { ...limits, starts },
  };
}

const at = (zone: string, local: string): number => localDateTimeToInstant(local.slice(0, 10), local.slice(11), zone);

describe('weekOf and countLoad', () => {
  it.each([
    ['2027-03-01', '2027-03-01'], // a Monday
    ['2027-03-07', '2027-03-01'], // its Sunday
    ['2027-03-08', '2027-03-08'],
    ['2027-01-01', '2026-12-28'], // across a year
  ])('the week of %s starts on %s', (date, monday) => expect(weekOf(date)).toBe(monday));

  it('counts local days and weeks of the zone, each start once', () => {
    const zone = 'America/New_York';
    // Sunday 23:30 local is Monday UTC: it counts on Sunday, in the week before.
    const starts = [at(zone, '2027-03-07T23:30'), at(zone, '2027-03-08T09:00'), at(zone, '2027-03-08T09:00')];
    const load = countLoad(starts, zone);
    expect([...load.perDay.values()].sort()).toEqual([1, 1]);
    expect([...load.perWeek.values()].sort()).toEqual([1, 1]);
  });
});

describe('explainStart with host limits (table)', () => {
  const zone = 'Europe/Berlin';
  const cases: [string, HostBookingLimits | null, string[], string, string][] = [
    ['no limits', null, ['2027-03-02T09:00', '2027-03-02T10:00'], '2027-03-02T12:00', 'available'],
    ['under the daily limit', { perDay: 3, perWeek: null }, ['2027-03-02T09:00', '2027-03-02T10:00'], '2027-03-02T12:00', 'available'],
    [
      'at the daily limit',
      { perDay: 2, perWeek: null },
      ['2027-03-02T09:00', '2027-03-02T10:00'],
      '2027-03-02T12:00',
      'host_limit_reached',
    ],
    ['the next day is free', { perDay: 2, perWeek: null }, ['2027-03-02T09:00', '2027-03-02T10:00'], '2027-03-03T00:00', 'available'],
    ['the local day, not UTC', { perDay: 1, perWeek: null }, ['2027-03-02T00:30'], '2027-03-01T23:00', 'available'],
    [
      'at the weekly limit (Mon + Sun)',
      { perDay: null, perWeek: 2 },
      ['2027-03-01T09:00', '2027-03-07T09:00'],
      '2027-03-04T12:00',
      'host_limit_reached',
    ],
    [
      'the next Monday starts a new week',
      { perDay: null, perWeek: 2 },
      ['2027-03-01T09:00', '2027-03-07T09:00'],
      '2027-03-08T00:00',
      'available',
    ],
    [
      'DST night counts one local day',
      { perDay: 2, perWeek: null },
      ['2027-03-28T01:00', '2027-03-28T03:00'],
      '2027-03-28T22:00',
      'host_limit_reached',
    ],
  ];
  it.each(cases)('%s', (_name, limits, booked, candidate, expected) => {
    const query: StartQuery = {
      rules: RULES,
      now: LONG_AGO,
      hosts: [
        host(
          'usr_a',
          zone,
          limits,
          booked.map((local) => at(zone, local)),
        ),
      ],
    };
    const verdict = explainStart(query, at(zone, candidate));
    expect(verdict.available ? 'available' : verdict.reason).toBe(expected);
  });

  it('round robin moves on to a host under its limit; collective slots disappear', () => {
    const busyA = [at(zone, '2027-03-02T09:00')];
    const hosts = [host('usr_a', zone, { perDay: 1, perWeek: null }, busyA), host('usr_b', zone, null)];
    const start = at(zone, '2027-03-02T12:00');
    const rr = explainStart(
      { rules: { ...RULES, schedulingType: 'round_robin', hostUserIds: ['usr_a', 'usr_b'] }, now: LONG_AGO, hosts },
      start,
    );
    expect(rr).toEqual({ available: true, hostUserId: 'usr_b' });
    const collective = explainStart(
      { rules: { ...RULES, schedulingType: 'collective', hostUserIds: ['usr_a', 'usr_b'] }, now: LONG_AGO, hosts },
      start,
    );
    expect(collective).toEqual({ available: false, reason: 'host_limit_reached' });
    const slots = computeSlots({
      rules: { ...RULES, schedulingType: 'collective', hostUserIds: ['usr_a', 'usr_b'] },
      now: LONG_AGO,
      hosts,
      range: { startDate: '2027-03-02', endDate: '2027-03-03', timeZone: zone },
    });
    expect(slots.every((slot) => localDateOf(slot.start, zone) === '2027-03-03')).toBe(true);
    expect(slots).toHaveLength(24);
  });
});

describe('explainSeries with host limits', () => {
  it('counts the series’ own earlier occurrences: a daily series of three in one week against a weekly limit of 2', () => {
    const zone = 'Europe/Berlin';
    const starts = ['2027-03-02T10:00', '2027-03-03T10:00', '2027-03-04T10:00'].map((local) => at(zone, local));
    const query: StartQuery = { rules: RULES, now: LONG_AGO, hosts: [host('usr_a', zone, { perDay: null, perWeek: 2 })] };
    expect(explainSeries(query, starts)).toEqual({
      available: false,
      refused: [{ index: 2, start: starts[2], reason: 'host_limit_reached' }],
    });
    expect(explainSeries(query, starts.slice(0, 2))).toEqual({ available: true, hostUserIds: [['usr_a'], ['usr_a']] });
  });

  it('round robin: the series’ host keeps it, another host standing in during its absence', () => {
    const starts = ['2027-03-02T10:00', '2027-03-03T10:00', '2027-03-04T10:00'].map((local) => at('UTC', local));
    const rules: EventTypeRules = { ...RULES, schedulingType: 'round_robin', hostUserIds: ['usr_a', 'usr_b'] };
    const absent: HostAvailability = {
      ...host('usr_a', 'UTC', null),
      outOfOffice: [{ start: starts[1], end: starts[1] + HOUR, redirectToUserId: 'usr_b' }],
    };
    const query: StartQuery = { rules, now: LONG_AGO, hosts: [absent, { ...host('usr_b', 'UTC', null), lastBookedAt: LONG_AGO }] };
    expect(explainSeries(query, starts)).toEqual({ available: true, hostUserIds: [['usr_a'], ['usr_b'], ['usr_a']] });
  });

  it('gives an occurrence in the host’s absence to its stand-in, whose own limit counts only the occurrences it takes', () => {
    const zone = 'UTC';
    const starts = ['2027-03-02T10:00', '2027-03-03T10:00', '2027-03-04T10:00', '2027-03-05T10:00'].map((local) => at(zone, local));
    const away = (from: number, to: number) => ({ start: from, end: to, redirectToUserId: 'usr_b' });
    const absent = (...entries: ReturnType<typeof away>[]): HostAvailability => ({
      ...host('usr_a', zone, { perDay: null, perWeek: 2 }),
      outOfOffice: entries,
    });
    const standIn = host('usr_b', zone, { perDay: null, perWeek: 1 });
    // The host's weekly limit of 2 counts its own two occurrences; the stand-in's limit of 1 its one.
    const once: StartQuery = { rules: RULES, now: LONG_AGO, hosts: [absent(away(starts[1], starts[1] + HOUR))], standIns: [standIn] };
    expect(explainSeries(once, starts.slice(0, 3))).toEqual({ available: true, hostUserIds: [['usr_a'], ['usr_b'], ['usr_a']] });
    // A second occurrence for the stand-in is past its limit.
    const twice: StartQuery = { ...once, hosts: [absent(away(starts[1], starts[2] + HOUR))] };
    expect(explainSeries(twice, starts)).toEqual({
      available: false,
      refused: [{ index: 2, start: starts[2], reason: 'host_limit_reached' }],
    });
  });
});

describe('host limits (property): generated bookings never exceed a limit', () => {
  const zones = ['UTC', 'America/New_York', 'Europe/Berlin', 'Australia/Lord_Howe', 'Asia/Kolkata', 'Pacific/Chatham'];
  // Around the 2027 transitions: the weeks of March 14 and 28, October 3 and 31, November 7.
  const spans = [Date.UTC(2027, 2, 8), Date.UTC(2027, 2, 22), Date.UTC(2027, 8, 27), Date.UTC(2027, 9, 25), Date.UTC(2027, 10, 1)];

  it('books candidates one by one through explainStart; per local day and week the counts stay within the limits', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...zones),
        fc.constantFrom(...spans),
        fc.option(fc.integer({ min: 1, max: 6 }), { nil: null }),
        fc.option(fc.integer({ min: 1, max: 15 }), { nil: null }),
        fc.array(fc.integer({ min: 0, max: 16 * 24 * 4 - 1 }), { minLength: 1, maxLength: 60 }),
        (zone, base, perDay, perWeek, picks) => {
          const limits = { perDay, perWeek };
          const booked: number[] = [];
          for (const pick of picks) {
            // Starts on a 15-minute grid: the schedule is all day, hourly from local midnight, so most are off-grid
            // and refused for that; the on-grid ones test the limits.
            const candidate = base + pick * 15 * 60_000;
            const verdict = explainStart({ rules: RULES, now: LONG_AGO, hosts: [host('usr_a', zone, limits, booked)] }, candidate);
            if (verdict.available) booked.push(candidate);
          }
          const load = countLoad(booked, zone);
          for (const count of load.perDay.values()) if (perDay !== null) expect(count).toBeLessThanOrEqual(perDay);
          for (const count of load.perWeek.values()) if (perWeek !== null) expect(count).toBeLessThanOrEqual(perWeek);
          // And the slots offered agree: none on a day or week already at a limit.
          const slots = computeSlots({
            rules: RULES,
            now: LONG_AGO,
            hosts: [host('usr_a', zone, limits, booked)],
            range: { startDate: localDateOf(base, zone), endDate: localDateOf(base + 15 * 24 * HOUR, zone), timeZone: zone },
          });
          const dayOf = (instant: number): string => localDateOf(instant, zone);
          const perDate = new Map<string, number>();
          const perMonday = new Map<string, number>();
          for (const start of booked) {
            perDate.set(dayOf(start), (perDate.get(dayOf(start)) ?? 0) + 1);
            perMonday.set(weekOf(dayOf(start)), (perMonday.get(weekOf(dayOf(start))) ?? 0) + 1);
          }
          for (const slot of slots) {
            if (perDay !== null) expect(perDate.get(dayOf(slot.start)) ?? 0).toBeLessThan(perDay);
            if (perWeek !== null) expect(perMonday.get(weekOf(dayOf(slot.start))) ?? 0).toBeLessThan(perWeek);
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});
