import fc from 'fast-check';
import {
  addDays,
  computeSlots,
  dayStartInstant,
  explainStart,
  localDateOf,
  localDateTimeToInstant,
  type BusyInterval,
  type DateOverride,
  type EventTypeRules,
  type HostAvailability,
  type SchedulingType,
  type SeatedStart,
  type Slot,
  type SlotQuery,
  type TimeWindow,
} from './index.js';

/*
 * Random weeks around the 2027 DST transitions in zones with odd offsets and odd shifts, checked
 * against the rules as written in docs/api-rules.md. The oracle here is deliberately naive: it converts
 * every window with localDateTimeToInstant and scans every busy interval for every candidate.
 */

const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;

const ZONES = [
  'UTC',
  'Europe/Berlin',
  'America/New_York',
  'Asia/Kolkata',
  'Australia/Lord_Howe',
  'Pacific/Chatham',
  'America/Havana',
  'America/Santiago',
  'Asia/Kathmandu',
];
/** A few days before each 2027 transition of the zones above, plus a quiet week. */
const ANCHOR_DATES = [
  '2027-03-12',
  '2027-03-26',
  '2027-04-01',
  '2027-04-02',
  '2027-09-03',
  '2027-09-24',
  '2027-10-01',
  '2027-10-29',
  '2027-11-05',
  '2027-06-14',
];

// ---------- arbitraries ----------

const clock = (minutes: number): string =>
  minutes === 1440 ? '24:00' : `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;

/** One to three non-overlapping windows on a 5-minute grid, some ending at 24:00. */
const dayWindows: fc.Arbitrary<TimeWindow[]> = fc
  .array(fc.tuple(fc.integer({ min: 0, max: 287 }), fc.integer({ min: 1, max: 120 })), { minLength: 1, maxLength: 3 })
  .map((pairs) => {
    const windows: TimeWindow[] = [];
    let lastEnd = -1;
    for (const [start5, length5] of [...pairs].sort((a, b) => a[0] - b[0])) {
      const start = start5 * 5;
      const end = Math.min(1440, start + length5 * 5);
      if (start < lastEnd) continue;
      windows.push({ startTime: clock(start), endTime: clock(end) });
      lastEnd = end;
    }
    return windows;
  });

const override: fc.Arbitrary<DateOverride | null> = fc.oneof(
  { weight: 4, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: fc.constant<DateOverride>({ type: 'unavailable' }) },
  { weight: 2, arbitrary: dayWindows.map((windows): DateOverride => ({ type: 'custom', windows })) },
);

const rulesArb = (schedulingType: SchedulingType, hostUserIds: string[]): fc.Arbitrary<EventTypeRules> =>
  fc.record({
    durationMinutes: fc.constantFrom(15, 30, 45, 60, 90),
    slotIntervalMinutes: fc.constantFrom(null, 10, 15, 20, 30, 60, 75),
    bufferBeforeMinutes: fc.constantFrom(0, 0, 5, 15, 30),
    bufferAfterMinutes: fc.constantFrom(0, 0, 10, 15, 45),
    minimumNoticeHours: fc.constantFrom(0, 0, 0, 0.5, 2, 30),
    bookingWindowDays: fc.constantFrom(1, 3, 5, 10, 10, 10),
    maxBookingsPerDay: fc.constantFrom(null, null, 1, 2),
    schedulingType: fc.constant(schedulingType),
    hostUserIds: fc.constant(hostUserIds),
  });

function hostArb(userId: string, hostDates: readonly string[], origin: number): fc.Arbitrary<HostAvailability> {
  const busy: fc.Arbitrary<BusyInterval> = fc
    .record({
      offset5: fc.integer({ min: -288, max: 288 * 4 }),
      length5: fc.integer({ min: 1, max: 36 }),
      before: fc.constantFrom(0, 0, 10, 15, 30),
      after: fc.constantFrom(0, 0, 10, 15, 30),
    })
    .map(({ offset5, length5, before, after }) => ({
      start: origin + offset5 * 5 * MINUTE,
      end: origin + (offset5 + length5) * 5 * MINUTE,
      bufferBeforeMinutes: before,
      bufferAfterMinutes: after,
    }));
  const perDate = <T>(arbitrary: fc.Arbitrary<T>): fc.Arbitrary<T[]> =>
    fc.array(arbitrary, { minLength: hostDates.length, maxLength: hostDates.length });
  return fc
    .record({
      timezone: fc.constantFrom(...ZONES),
      hasSchedule: fc.integer({ min: 0, max: 9 }).map((n) => n > 0),
      weekly: fc.array(fc.oneof({ weight: 1, arbitrary: fc.constant([]) }, { weight: 4, arbitrary: dayWindows }), {
        minLength: 7,
        maxLength: 7,
      }),
      overrides: perDate(override),
      counts: perDate(fc.integer({ min: 0, max: 2 })),
      busy: fc.array(busy, { maxLength: 25 }),
      // Out-of-office entries on a 1-minute grid, partial days to several days long, overlapping at will.
      outOfOffice: fc.oneof(
        { weight: 2, arbitrary: fc.constant([]) },
        {
          weight: 1,
          arbitrary: fc.array(
            fc
              .record({ offset: fc.integer({ min: -1440, max: 1440 * 5 }), length: fc.integer({ min: 1, max: 1440 * 2 }) })
              .map(({ offset, length }) => ({ start: origin + offset * MINUTE, end: origin + (offset + length) * MINUTE })),
            { maxLength: 3 },
          ),
        },
      ),
      // A small domain so that ties happen.
      lastBookedAt: fc.option(fc.integer({ min: 0, max: 3 }).map((n) => origin - n * DAY)),
    })
    .map(({ timezone, hasSchedule, weekly, overrides, counts, busy, outOfOffice, lastBookedAt }) => ({
      userId,
      schedule: hasSchedule ? { timezone, days: weekly.map((windows, dayOfWeek) => ({ dayOfWeek, windows })) } : null,
      overrides: Object.fromEntries(hostDates.flatMap((date, index) => (overrides[index] === null ? [] : [[date, overrides[index]]]))),
      bookingsPerDate: Object.fromEntries(hostDates.map((date, index) => [date, counts[index]])),
      busy,
      outOfOffice,
      lastBookedAt,
    }));
}

/** A range of 1–3 dates in a random zone, 1–3 hosts, rules, and a "now" around the range. */
function scenario(types: readonly SchedulingType[], maxHosts = 3, maxExtraDays = 2): fc.Arbitrary<SlotQuery> {
  return fc
    .record({
      anchor: fc.constantFrom(...ANCHOR_DATES),
      shift: fc.integer({ min: 0, max: 3 }),
      extraDays: fc.integer({ min: 0, max: maxExtraDays }),
      timeZone: fc.constantFrom(...ZONES),
      hostCount: fc.integer({ min: 1, max: maxHosts }),
      schedulingType: fc.constantFrom(...types),
      nowOffsetMinutes: fc.integer({ min: -3 * 1440, max: 1440 }),
      nowMillis: fc.integer({ min: 0, max: 59_999 }),
    })
    .chain(({ anchor, shift, extraDays, timeZone, hostCount, schedulingType, nowOffsetMinutes, nowMillis }) => {
      const startDate = addDays(anchor, shift);
      const endDate = addDays(startDate, extraDays);
      const origin = Date.parse(`${startDate}T00:00:00Z`);
      // Host-local dates touched by the range lie within two days of it, whatever the zones.
      const hostDates = Array.from({ length: extraDays + 5 }, (_, index) => addDays(startDate, index - 2));
      const ids = Array.from({ length: schedulingType === 'one_on_one' ? 1 : hostCount }, (_, index) => `usr_${index}`);
      return fc.record({
        rules: rulesArb(schedulingType, ids),
        hosts: fc.tuple(...ids.map((id) => hostArb(id, hostDates, origin))),
        now: fc.constant(origin + nowOffsetMinutes * MINUTE + nowMillis),
        range: fc.constant({ startDate, endDate, timeZone }),
      });
    });
}

// ---------- the rules, written out naively ----------

const durationOf = (rules: EventTypeRules): number => rules.durationMinutes * MINUTE;
const stepOf = (rules: EventTypeRules): number => (rules.slotIntervalMinutes ?? rules.durationMinutes) * MINUTE;

function conflicts(rules: EventTypeRules, start: number, busy: BusyInterval): boolean {
  const end = start + durationOf(rules);
  const ours = start - rules.bufferBeforeMinutes * MINUTE < busy.end && busy.start < end + rules.bufferAfterMinutes * MINUTE;
  const theirs = start < busy.end + busy.bufferAfterMinutes * MINUTE && busy.start - busy.bufferBeforeMinutes * MINUTE < end;
  return ours || theirs;
}

/** The host's windows of one local date, converted one boundary at a time. */
function windowsOn(host: HostAvailability, date: string): { start: number; end: number }[] {
  if (host.schedule === null) return [];
  const zone = host.schedule.timezone;
  const override = host.overrides[date];
  const dayOfWeek = new Date(`${date}T00:00:00Z`).getUTCDay();
  const wall =
    override === undefined
      ? host.schedule.days.filter((day) => day.dayOfWeek === dayOfWeek).flatMap((day) => day.windows)
      : override.type === 'unavailable'
        ? []
        : override.windows;
  return wall.map((window) => ({
    start: localDateTimeToInstant(date, window.startTime, zone),
    end: localDateTimeToInstant(date, window.endTime, zone),
  }));
}

function rangeBounds(query: SlotQuery): [number, number] {
  const { startDate, endDate, timeZone } = query.range;
  return [dayStartInstant(startDate, timeZone), dayStartInstant(addDays(endDate, 1), timeZone)];
}

/** Rule 1–4 for one host, by brute force. A start with seats taken (`seated`) is no new start for the daily cap. */
function oracleStarts(query: SlotQuery, host: HostAvailability, seated: (start: number) => boolean = () => false): number[] {
  const { rules, now } = query;
  const [rangeStart, rangeEnd] = rangeBounds(query);
  const starts = new Set<number>();
  for (let date = addDays(query.range.startDate, -2); date <= addDays(query.range.endDate, 2); date = addDays(date, 1)) {
    const capped = rules.maxBookingsPerDay !== null && (host.bookingsPerDate[date] ?? 0) >= rules.maxBookingsPerDay;
    for (const window of windowsOn(host, date)) {
      for (let start = window.start; start + durationOf(rules) <= window.end; start += stepOf(rules)) {
        if (capped && !seated(start)) continue;
        const inRange = start >= rangeStart && start < rangeEnd;
        const inTime = start >= now + rules.minimumNoticeHours * HOUR && start <= now + rules.bookingWindowDays * DAY;
        const away = (host.outOfOffice ?? []).some((entry) => start < entry.end && entry.start < start + durationOf(rules));
        if (inRange && inTime && !away && !host.busy.some((busy) => conflicts(rules, start, busy))) starts.add(start);
      }
    }
  }
  return [...starts].sort((a, b) => a - b);
}

function hostById(query: SlotQuery, userId: string): HostAvailability {
  const host = query.hosts.find((candidate) => candidate.userId === userId);
  if (host === undefined) throw new Error(`no host ${userId}`);
  return host;
}

/** Hosts a slot occupies: every host for collective, else the named one. */
function occupiedHosts(query: SlotQuery, slot: Slot): HostAvailability[] {
  return query.rules.schedulingType === 'collective' ? query.hosts.slice() : [hostById(query, slot.hostUserId)];
}

function ownSlots(query: SlotQuery, host: HostAvailability): number[] {
  const rules = { ...query.rules, schedulingType: 'one_on_one' as const, hostUserIds: [host.userId] };
  return computeSlots({ ...query, rules }).map((slot) => slot.start);
}

const ALL_TYPES: SchedulingType[] = ['one_on_one', 'round_robin', 'collective'];

// ---------- properties ----------

describe('computeSlots properties', () => {
  it('one_on_one equals the brute-force reading of the rules', () => {
    fc.assert(
      fc.property(scenario(['one_on_one']), (query) => {
        expect(computeSlots(query).map((slot) => slot.start)).toEqual(oracleStarts(query, query.hosts[0]));
      }),
      { numRuns: 200 },
    );
  });

  it('no slot conflicts with a busy interval of a host it occupies (rule 2, both paddings)', () => {
    fc.assert(
      fc.property(scenario(ALL_TYPES), (query) => {
        for (const slot of computeSlots(query)) {
          for (const host of occupiedHosts(query, slot)) {
            for (const busy of host.busy) expect(conflicts(query.rules, slot.start, busy)).toBe(false);
          }
        }
      }),
      { numRuns: 150 },
    );
  });

  it('every slot lies inside a window of its host’s local date, on that window’s grid', () => {
    fc.assert(
      fc.property(scenario(ALL_TYPES), (query) => {
        for (const slot of computeSlots(query)) {
          for (const host of occupiedHosts(query, slot)) {
            const zone = host.schedule?.timezone ?? 'UTC';
            const fits = windowsOn(host, localDateOf(slot.start, zone)).some(
              (window) => slot.start >= window.start && slot.end <= window.end && (slot.start - window.start) % stepOf(query.rules) === 0,
            );
            expect(fits).toBe(true);
          }
        }
      }),
      { numRuns: 150 },
    );
  });

  it('slots are sorted, unique, as long as the meeting, in range and within notice and booking window', () => {
    fc.assert(
      fc.property(scenario(ALL_TYPES), (query) => {
        const slots = computeSlots(query);
        const [rangeStart, rangeEnd] = rangeBounds(query);
        slots.forEach((slot, index) => {
          if (index > 0) expect(slot.start).toBeGreaterThan(slots[index - 1].start);
          expect(slot.end - slot.start).toBe(durationOf(query.rules));
          expect(slot.start).toBeGreaterThanOrEqual(Math.max(rangeStart, query.now + query.rules.minimumNoticeHours * HOUR));
          expect(slot.start).toBeLessThan(rangeEnd);
          expect(slot.start).toBeLessThanOrEqual(query.now + query.rules.bookingWindowDays * DAY);
        });
      }),
      { numRuns: 150 },
    );
  });

  it('results do not depend on the process time zone', () => {
    const original = process.env.TZ;
    try {
      fc.assert(
        fc.property(scenario(ALL_TYPES), (query) => {
          process.env.TZ = 'UTC';
          const reference = computeSlots(query);
          const probe = reference[0]?.start ?? query.now;
          const referenceVerdict = explainStart(query, probe);
          for (const zone of ['America/Los_Angeles', 'Asia/Kathmandu', 'Pacific/Chatham']) {
            process.env.TZ = zone;
            expect(computeSlots(query)).toEqual(reference);
            expect(explainStart(query, probe)).toEqual(referenceVerdict);
          }
        }),
        { numRuns: 40 },
      );
    } finally {
      process.env.TZ = original;
    }
  });

  it('round robin offers the union of the hosts’ own slots, each to the least recently booked free host', () => {
    fc.assert(
      fc.property(scenario(['round_robin']), (query) => {
        const own = new Map(query.hosts.map((host) => [host.userId, new Set(ownSlots(query, host))]));
        const union = [...new Set([...own.values()].flatMap((starts) => [...starts]))].sort((a, b) => a - b);
        const slots = computeSlots(query);
        expect(slots.map((slot) => slot.start)).toEqual(union);
        const preference = (host: HostAvailability): [number, number] => [
          host.lastBookedAt ?? -Infinity,
          query.rules.hostUserIds.indexOf(host.userId),
        ];
        for (const slot of slots) {
          const free = query.hosts.filter((host) => own.get(host.userId)?.has(slot.start));
          const best = free.sort((a, b) => preference(a)[0] - preference(b)[0] || preference(a)[1] - preference(b)[1])[0];
          expect(slot.hostUserId).toBe(best.userId);
        }
      }),
      { numRuns: 100 },
    );
  });

  it('collective slots are exactly the starts every host has on its own, named after the first host', () => {
    fc.assert(
      fc.property(scenario(['collective']), (query) => {
        const own = query.hosts.map((host) => new Set(ownSlots(query, host)));
        const slots = computeSlots(query);
        const expected = [...own[0]].filter((start) => own.every((starts) => starts.has(start)));
        expect(slots.map((slot) => slot.start)).toEqual(expected);
        for (const slot of slots) expect(slot.hostUserId).toBe(query.rules.hostUserIds[0]);
      }),
      { numRuns: 100 },
    );
  });

  it('explainStart agrees with computeSlots at every 5-minute instant of the range', () => {
    fc.assert(
      fc.property(scenario(ALL_TYPES, 3, 1), (query) => {
        const slots = new Map(computeSlots(query).map((slot) => [slot.start, slot.hostUserId]));
        const [rangeStart, rangeEnd] = rangeBounds(query);
        const candidates = new Set(slots.keys());
        for (let start = rangeStart; start < rangeEnd; start += 5 * MINUTE) candidates.add(start);
        for (const start of candidates) {
          const verdict = explainStart(query, start);
          const hostUserId = slots.get(start);
          expect(verdict).toEqual(
            hostUserId === undefined ? expect.objectContaining({ available: false }) : { available: true, hostUserId },
          );
        }
      }),
      { numRuns: 25 },
    );
  });

  it('a calendar busy time blocks exactly like a booking with no buffers of its own', () => {
    fc.assert(
      fc.property(scenario(ALL_TYPES), (query) => {
        // Move each host's unbuffered bookings into its calendar busy times: the slots must not change.
        const moved: SlotQuery = {
          ...query,
          hosts: query.hosts.map((host) => {
            const plain = host.busy.filter((b) => b.bufferBeforeMinutes === 0 && b.bufferAfterMinutes === 0);
            return {
              ...host,
              busy: host.busy.filter((b) => !plain.includes(b)),
              externalBusy: plain.map(({ start, end }) => ({ start, end })),
            };
          }),
        };
        expect(computeSlots(moved)).toEqual(computeSlots(query));
      }),
      { numRuns: 150 },
    );
  });

  it('an out-of-office entry over whole local dates blocks exactly like unavailable overrides there, in every zone', () => {
    fc.assert(
      fc.property(scenario(ALL_TYPES), fc.array(fc.boolean(), { minLength: 7, maxLength: 7 }), (query, away) => {
        // The host-local dates the scenario may touch (see scenario): an entry from one local midnight to the next,
        // merged over consecutive dates, against an unavailable override on each of those dates.
        const dates = Array.from({ length: 7 }, (_, index) => addDays(query.range.startDate, index - 2)).filter((_, index) => away[index]);
        const asOverrides: SlotQuery = {
          ...query,
          hosts: query.hosts.map((host) => ({
            ...host,
            outOfOffice: [],
            overrides: { ...host.overrides, ...Object.fromEntries(dates.map((date) => [date, { type: 'unavailable' as const }])) },
          })),
        };
        const asEntries: SlotQuery = {
          ...query,
          hosts: query.hosts.map((host) => {
            const zone = host.schedule?.timezone ?? 'UTC';
            return {
              ...host,
              outOfOffice: dates.map((date) => ({ start: dayStartInstant(date, zone), end: dayStartInstant(addDays(date, 1), zone) })),
            };
          }),
        };
        expect(computeSlots(asEntries)).toEqual(computeSlots(asOverrides));
      }),
      { numRuns: 200 },
    );
  });

  it('with a stand-in, an absent host’s slots are the stand-in’s own during the absence (brute force), and explainStart agrees', () => {
    const withStandIn = scenario(['one_on_one', 'round_robin', 'collective']).chain((query) => {
      const origin = Date.parse(`${query.range.startDate}T00:00:00Z`);
      const dates: string[] = [];
      for (let date = addDays(query.range.startDate, -2); date <= addDays(query.range.endDate, 2); date = addDays(date, 1))
        dates.push(date);
      return fc
        .record({
          standIn: hostArb('usr_r', dates, origin),
          redirected: fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
        })
        .map(({ standIn, redirected }): SlotQuery => ({
          ...query,
          standIns: [standIn],
          hosts: query.hosts.map((host) => ({
            ...host,
            outOfOffice: (host.outOfOffice ?? []).map((entry, index) => ({
              ...entry,
              redirectToUserId: redirected[index] ? 'usr_r' : null,
            })),
          })),
        }));
    });
    fc.assert(
      fc.property(withStandIn, (query) => {
        const slots = computeSlots(query);
        if (query.rules.schedulingType === 'one_on_one') {
          const host = query.hosts[0];
          const standIn = query.standIns![0];
          const entries = (host.outOfOffice ?? []).filter((entry) => entry.redirectToUserId);
          const during = (start: number): boolean =>
            entries.some((entry) => start < entry.end && entry.start < start + durationOf(query.rules));
          const expected = new Map<number, string>(oracleStarts(query, host).map((start) => [start, host.userId]));
          for (const start of oracleStarts(query, standIn)) if (during(start) && !expected.has(start)) expected.set(start, standIn.userId);
          expect(slots.map((slot) => [slot.start, slot.hostUserId])).toEqual([...expected].sort((a, b) => a[0] - b[0]));
        }
        for (const slot of slots) {
          expect(explainStart(query, slot.start)).toMatchObject({ available: true, hostUserId: slot.hostUserId });
        }
      }),
      { numRuns: 200 },
    );
  });

  it('a live hold blocks exactly like a booking with the same buffers (api-rules.md § Browser booking)', () => {
    fc.assert(
      fc.property(scenario(ALL_TYPES), fc.array(fc.boolean(), { minLength: 25, maxLength: 25 }), (query, asHold) => {
        // Turn some bookings into holds that are live for a while yet: the slots must not change.
        const moved: SlotQuery = {
          ...query,
          hosts: query.hosts.map((host) => ({
            ...host,
            busy: host.busy.filter((_, index) => !asHold[index]),
            held: host.busy.filter((_, index) => asHold[index]).map((busy) => ({ ...busy, expiresAt: query.now + 60_000 })),
          })),
        };
        expect(computeSlots(moved)).toEqual(computeSlots(query));
      }),
      { numRuns: 150 },
    );
  });

  it('with seats, seatsRemaining and the offered starts equal a brute-force count (api-rules.md § Seats and series)', () => {
    const seated = scenario(['one_on_one']).chain((query) => {
      // Seats may sit on a day the daily cap has closed to new starts.
      const free = oracleStarts({ ...query, rules: { ...query.rules, maxBookingsPerDay: null } }, query.hosts[0]);
      const seat = fc.record({
        booked: fc.integer({ min: 0, max: 4 }),
        holds: fc.integer({ min: 0, max: 2 }),
        before: fc.constantFrom(0, 10),
        after: fc.constantFrom(0, 15),
      });
      return fc.record({
        query: fc.constant(query),
        capacity: fc.integer({ min: 2, max: 5 }),
        starts: fc.subarray(free, { maxLength: Math.min(6, free.length) }),
        seats: fc.array(seat, { minLength: 6, maxLength: 6 }),
      });
    });
    fc.assert(
      fc.property(seated, ({ query, capacity, starts, seats }) => {
        const host = query.hosts[0];
        const duration = durationOf(query.rules);
        const seatedStarts: SeatedStart[] = starts.map((start, index) => ({
          start,
          end: start + duration,
          bufferBeforeMinutes: seats[index].before,
          bufferAfterMinutes: seats[index].after,
          booked: seats[index].booked,
          holdExpiries: Array.from({ length: seats[index].holds }, () => query.now + HOUR),
        }));
        const withSeats: SlotQuery = {
          ...query,
          rules: { ...query.rules, seatsPerSlot: capacity },
          hosts: [{ ...host, seats: seatedStarts }],
        };
        const taken = (seat: SeatedStart): number => seat.booked + seat.holdExpiries.length;
        const expected: { start: number; seatsRemaining: number }[] = [];
        const ownSeats = (start: number): SeatedStart | undefined => seatedStarts.find((seat) => seat.start === start && taken(seat) > 0);
        for (const start of oracleStarts(query, host, (start) => ownSeats(start) !== undefined)) {
          const own = ownSeats(start);
          if (own !== undefined && taken(own) >= capacity) continue;
          const others = seatedStarts.filter((seat) => seat.start !== start && taken(seat) > 0);
          if (others.some((seat) => conflicts(query.rules, start, seat))) continue;
          expected.push({ start, seatsRemaining: capacity - (own === undefined ? 0 : taken(own)) });
        }
        expect(computeSlots(withSeats).map(({ start, seatsRemaining }) => ({ start, seatsRemaining }))).toEqual(expected);
        for (const { start, seatsRemaining } of expected) {
          expect(explainStart(withSeats, start)).toEqual({ available: true, hostUserId: host.userId, seatsRemaining });
        }
      }),
      { numRuns: 200 },
    );
  });
});
