import fc from 'fast-check';
import { computeSlots, slotsValidUntil, type EventTypeRules, type HostAvailability, type SlotQuery } from './index.js';

const HOUR = 3_600_000;
const DAY = 86_400_000;
const NOW = Date.parse('2027-03-01T08:00:00Z'); // a Monday

const RULES: EventTypeRules = {
  durationMinutes: 60,
  slotIntervalMinutes: null,
  bufferBeforeMinutes: 0,
  bufferAfterMinutes: 0,
  minimumNoticeHours: 0,
  bookingWindowDays: 60,
  maxBookingsPerDay: null,
  schedulingType: 'one_on_one',
  hostUserIds: ['usr_a'],
};

/** 09:00–12:00 UTC on weekdays. */
const HOST: HostAvailability = {
  userId: 'usr_a',
  schedule: {
    timezone: 'UTC',
    days: [1, 2, 3, 4, 5].map((dayOfWeek) => ({ dayOfWeek, windows: [{ startTime: '09:00', endTime: '12:00' }] })),
  },
  overrides: {},
  busy: [],
  bookingsPerDate: {},
  lastBookedAt: null,
};

function query(rules: Partial<EventTypeRules>, startDate: string, endDate: string, host: Partial<HostAvailability> = {}): SlotQuery {
  return { rules: { ...RULES, ...rules }, hosts: [{ ...HOST, ...host }], now: NOW, range: { startDate, endDate, timeZone: 'UTC' } };
}

const iso = (instant: number): string => new Date(instant).toISOString();
const validUntil = (q: SlotQuery): string => iso(slotsValidUntil(q, computeSlots(q)));

describe('slotsValidUntil', () => {
  it.each<[string, SlotQuery, string]>([
    ['the first start falls into the past', query({}, '2027-03-01', '2027-03-02'), '2027-03-01T09:00:00.001Z'],
    [
      'the first start falls inside 2 h of notice',
      query({ minimumNoticeHours: 2 }, '2027-03-01', '2027-03-02'),
      '2027-03-01T08:00:00.001Z',
    ],
    [
      'a fractional notice (1.5 h) after the first start already inside it',
      query({ minimumNoticeHours: 1.5 }, '2027-03-01', '2027-03-01'),
      '2027-03-01T08:30:00.001Z', // 10:00 − 1.5 h; 09:00 is already excluded
    ],
    [
      'the booking window reaches the next start beyond it: 2 days from Monday 08:00 → Wednesday 09:00 enters on Monday 09:00',
      query({ bookingWindowDays: 2, minimumNoticeHours: 48 }, '2027-03-03', '2027-03-05'),
      '2027-03-01T09:00:00.000Z',
    ],
    [
      'a busy start beyond the window still counts as coming in (never late)',
      query({ bookingWindowDays: 2, minimumNoticeHours: 48 }, '2027-03-03', '2027-03-05', {
        busy: [
          {
            start: Date.parse('2027-03-03T09:00:00Z'),
            end: Date.parse('2027-03-03T10:00:00Z'),
            bufferBeforeMinutes: 0,
            bufferAfterMinutes: 0,
          },
        ],
      }),
      '2027-03-01T09:00:00.000Z',
    ],
    [
      'nothing listed and no start beyond the window within a day (Friday evening to Sunday): a day',
      query({ bookingWindowDays: 1 }, '2027-03-06', '2027-03-07'),
      '2027-03-02T08:00:00.000Z',
    ],
  ])('%s', (_name, q, expected) => {
    expect(validUntil(q)).toBe(expected);
  });

  it('never lists a range wholly inside the window and past: forever', () => {
    expect(slotsValidUntil(query({}, '2027-02-01', '2027-02-02'), [])).toBe(Infinity);
  });

  it('holds: any later now before the instant gives the same slots (never late)', () => {
    const zones = ['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kolkata'];
    fc.assert(
      fc.property(
        fc.record({
          zone: fc.constantFrom(...zones),
          notice: fc.integer({ min: 0, max: 96 }).map((quarters) => quarters / 4),
          window: fc.integer({ min: 1, max: 6 }),
          step: fc.constantFrom(15, 30, 60),
          startOffset: fc.integer({ min: -1, max: 5 }),
          length: fc.integer({ min: 0, max: 6 }),
          busyStarts: fc.array(fc.integer({ min: 0, max: 8 * 24 * 4 }), { maxLength: 6 }),
          fractions: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 4 }),
        }),
        ({ zone, notice, window, step, startOffset, length, busyStarts, fractions }) => {
          const date = (offset: number): string => new Date(NOW + offset * DAY).toISOString().slice(0, 10);
          const q: SlotQuery = {
            rules: { ...RULES, minimumNoticeHours: notice, bookingWindowDays: window, slotIntervalMinutes: step, durationMinutes: 30 },
            hosts: [
              {
                ...HOST,
                schedule: { ...HOST.schedule!, timezone: zone },
                busy: busyStarts.map((quarter) => ({
                  start: NOW + quarter * 15 * 60_000,
                  end: NOW + quarter * 15 * 60_000 + HOUR,
                  bufferBeforeMinutes: 0,
                  bufferAfterMinutes: 0,
                })),
              },
            ],
            now: NOW,
            range: { startDate: date(startOffset), endDate: date(startOffset + length), timeZone: zone },
          };
          const slots = computeSlots(q);
          const until = slotsValidUntil(q, slots);
          expect(until).toBeGreaterThan(NOW);
          const horizon = Math.min(until, NOW + 10 * DAY);
          for (const fraction of [...fractions, 1]) {
            const later = Math.min(horizon - 1, NOW + Math.floor(fraction * (horizon - NOW)));
            expect(computeSlots({ ...q, now: later })).toEqual(slots);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('slotsValidUntil with holds', () => {
  const hold = { start: NOW + 2 * HOUR, end: NOW + 3 * HOUR, bufferBeforeMinutes: 0, bufferAfterMinutes: 0 };

  it('ends at the first expiry of a hold the answer saw, when that comes before anything else', () => {
    const q = query({ minimumNoticeHours: 0 }, '2027-03-02', '2027-03-03', {
      held: [
        { ...hold, expiresAt: NOW + 10 * 60_000 },
        { ...hold, expiresAt: NOW + 5 * 60_000 },
      ],
    });
    expect(validUntil(q)).toBe(iso(NOW + 5 * 60_000));
  });

  it('counts the holds of a stand-in, who takes an absent host’s place (its hold ends, the time comes back)', () => {
    const standIn: HostAvailability = { ...HOST, userId: 'usr_b', held: [{ ...hold, expiresAt: NOW + 7 * 60_000 }] };
    const away = { start: NOW, end: NOW + 5 * HOUR, redirectToUserId: 'usr_b' };
    const q: SlotQuery = { ...query({}, '2027-03-01', '2027-03-01', { outOfOffice: [away] }), standIns: [standIn] };
    const slots = computeSlots(q);
    expect(slots.map((slot) => [iso(slot.start), slot.hostUserId])).toEqual([
      ['2027-03-01T09:00:00.000Z', 'usr_b'],
      ['2027-03-01T11:00:00.000Z', 'usr_b'],
    ]);
    expect(iso(slotsValidUntil(q, slots))).toBe(iso(NOW + 7 * 60_000));
  });

  it('ignores holds that have already expired', () => {
    const q = query({}, '2027-03-02', '2027-03-03', { held: [{ ...hold, expiresAt: NOW }] });
    expect(validUntil(q)).toBe(validUntil(query({}, '2027-03-02', '2027-03-03')));
  });
});
