import { explainRouted, localDateTimeToInstant, routedQuery, type HostAvailability, type StartQuery } from './index.js';

/* Three hosts in UTC, Mon–Fri 09:00–12:00, hourly 60-minute meetings; "now" is Mon 2027-03-01 06:00; b is busy Tue 10:00. */

const at = (date: string, time: string): number => localDateTimeToInstant(date, time, 'UTC');

function host(userId: string, busy: HostAvailability['busy'] = []): HostAvailability {
  return {
    userId,
    schedule: {
      timezone: 'UTC',
      days: [1, 2, 3, 4, 5].map((dayOfWeek) => ({ dayOfWeek, windows: [{ startTime: '09:00', endTime: '12:00' }] })),
    },
    overrides: {},
    busy,
    bookingsPerDate: {},
    lastBookedAt: null,
  };
}

const busyTuesday10 = [{ start: at('2027-03-02', '10:00'), end: at('2027-03-02', '11:00'), bufferBeforeMinutes: 0, bufferAfterMinutes: 0 }];

function query(schedulingType: 'round_robin' | 'collective'): StartQuery {
  return {
    rules: {
      durationMinutes: 60,
      slotIntervalMinutes: null,
      bufferBeforeMinutes: 0,
      bufferAfterMinutes: 0,
      minimumNoticeHours: 0,
      bookingWindowDays: 30,
      maxBookingsPerDay: null,
      schedulingType,
      hostUserIds: ['a', 'b', 'c'],
    },
    hosts: [host('a'), host('b', busyTuesday10), host('c')],
    now: at('2027-03-01', '06:00'),
  };
}

describe('routed requests (contract § 22)', () => {
  it('routedQuery keeps only the routed hosts, in the event type’s order', () => {
    const routed = routedQuery(query('round_robin'), ['c', 'b']);
    expect(routed.rules.hostUserIds).toEqual(['b', 'c']);
    expect(routed.hosts.map((h) => h.userId)).toEqual(['b', 'c']);
  });

  it('round robin among the routed hosts; a time only another host could take is not_routed', () => {
    expect(explainRouted(query('round_robin'), at('2027-03-02', '09:00'), ['c', 'b'])).toEqual({ available: true, hostUserId: 'b' });
    expect(explainRouted(query('round_robin'), at('2027-03-02', '10:00'), ['b'])).toEqual({ available: false, reason: 'not_routed' });
    // Nobody could take it: the routed hosts' own reason.
    expect(explainRouted(query('round_robin'), at('2027-03-06', '10:00'), ['b'])).toEqual({
      available: false,
      reason: 'outside_availability',
    });
  });

  it('collective: the routed subset is the set that must be free', () => {
    expect(explainRouted(query('collective'), at('2027-03-02', '10:00'), ['a', 'c'])).toMatchObject({ available: true });
    expect(explainRouted(query('collective'), at('2027-03-02', '10:00'), ['a', 'b'])).toEqual({
      available: false,
      reason: 'already_booked',
    });
  });
});
