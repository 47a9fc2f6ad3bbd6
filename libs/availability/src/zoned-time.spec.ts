import fc from 'fast-check';
import { Temporal } from 'temporal-polyfill';
import { epochDayToIsoDate, isoDateToEpochDay, parseWallTime } from './calendar.js';
import {
  addDays,
  countByLocalDate,
  dayStartInstant,
  EARLIEST_INSTANT,
  formatInstantInZone,
  formatInstantsInZone,
  inputTimestampInstant,
  isStorableInstant,
  LATEST_INSTANT,
  localDateOf,
  localDateTimeToInstant,
  parseInputTimestamp,
} from './index.js';
import { ZoneDays } from './zone-days.js';

const iso = (instant: number): string => new Date(instant).toISOString();
/** Temporal's own answers, the oracle for the day tables (dayStartInstant and localDateOf read those tables). */
const temporalDayStart = (epochDay: number, zone: string): number =>
  Temporal.PlainDate.from(epochDayToIsoDate(epochDay)).toZonedDateTime({ timeZone: zone }).epochMilliseconds;
const temporalDate = (instant: number, zone: string): string =>
  Temporal.Instant.fromEpochMilliseconds(instant).toZonedDateTimeISO(zone).toPlainDate().toString();

describe('localDateTimeToInstant: gaps mean the gap end, repeats mean the first occurrence', () => {
  it.each([
    { zone: 'America/New_York', date: '2027-03-14', time: '01:59', expected: '2027-03-14T06:59:00.000Z', note: 'before the gap' },
    { zone: 'America/New_York', date: '2027-03-14', time: '02:00', expected: '2027-03-14T07:00:00.000Z', note: 'gap start' },
    { zone: 'America/New_York', date: '2027-03-14', time: '02:30', expected: '2027-03-14T07:00:00.000Z', note: 'in the gap (not 03:30)' },
    { zone: 'America/New_York', date: '2027-03-14', time: '03:00', expected: '2027-03-14T07:00:00.000Z', note: 'gap end' },
    { zone: 'America/New_York', date: '2027-11-07', time: '01:00', expected: '2027-11-07T05:00:00.000Z', note: 'repeated, EDT' },
    { zone: 'America/New_York', date: '2027-11-07', time: '01:30', expected: '2027-11-07T05:30:00.000Z', note: 'repeated, EDT' },
    { zone: 'America/New_York', date: '2027-11-07', time: '02:00', expected: '2027-11-07T07:00:00.000Z', note: 'after, EST' },
    { zone: 'Europe/Berlin', date: '2027-03-28', time: '02:30', expected: '2027-03-28T01:00:00.000Z', note: 'in the gap' },
    { zone: 'Europe/Berlin', date: '2027-10-31', time: '02:30', expected: '2027-10-31T00:30:00.000Z', note: 'repeated, CEST' },
    { zone: 'Australia/Lord_Howe', date: '2027-10-03', time: '02:15', expected: '2027-10-02T15:30:00.000Z', note: '30-min gap' },
    { zone: 'Australia/Lord_Howe', date: '2027-04-04', time: '01:45', expected: '2027-04-03T14:45:00.000Z', note: '30-min repeat, +11:00' },
    { zone: 'Pacific/Chatham', date: '2027-09-26', time: '03:00', expected: '2027-09-25T14:00:00.000Z', note: 'gap 02:45–03:45' },
    { zone: 'Pacific/Chatham', date: '2027-04-04', time: '03:00', expected: '2027-04-03T13:15:00.000Z', note: 'repeat, +13:45' },
    { zone: 'Asia/Kolkata', date: '2027-03-01', time: '09:00:30.250', expected: '2027-03-01T03:30:30.250Z', note: 'seconds' },
    { zone: 'America/Havana', date: '2027-03-14', time: '00:00', expected: '2027-03-14T05:00:00.000Z', note: 'midnight in the gap' },
    { zone: 'Europe/Berlin', date: '2027-03-01', time: '24:00', expected: '2027-03-01T23:00:00.000Z', note: 'next midnight' },
  ])('$zone $date $time → $expected ($note)', ({ zone, date, time, expected }) => {
    expect(iso(localDateTimeToInstant(date, time, zone))).toBe(expected);
  });

  it.each(['25:00', '12:60', '9:00', '24:01', '12:00:60'])('rejects the time %s', (time) => {
    expect(() => localDateTimeToInstant('2027-03-01', time, 'UTC')).toThrow(RangeError);
  });

  it.each(['2027-02-29', '2027-13-01', '27-03-01'])('rejects the date %s', (date) => {
    expect(() => localDateTimeToInstant(date, '09:00', 'UTC')).toThrow(RangeError);
  });
});

describe('parseInputTimestamp', () => {
  it.each([
    { input: '2026-03-02T10:00:00+01:00', zone: 'UTC', expected: '2026-03-02T09:00:00.000Z' },
    { input: '2026-03-02T10:00:00.123Z', zone: 'Asia/Tokyo', expected: '2026-03-02T10:00:00.123Z' },
    { input: '2026-03-02T10:00:00-0530', zone: 'UTC', expected: '2026-03-02T15:30:00.000Z' },
    { input: '2026-03-02T10:00', zone: 'Europe/Berlin', expected: '2026-03-02T09:00:00.000Z' },
    { input: '2026-03-02 10:00:00', zone: 'Asia/Kolkata', expected: '2026-03-02T04:30:00.000Z' },
    { input: '2027-03-14T02:30:00', zone: 'America/New_York', expected: '2027-03-14T07:00:00.000Z' },
    { input: '2027-11-07T01:30:00', zone: 'America/New_York', expected: '2027-11-07T05:30:00.000Z' },
  ])('$input in $zone → $expected', ({ input, zone, expected }) => {
    const parsed = parseInputTimestamp(input, zone);
    expect(parsed === null ? null : iso(parsed)).toBe(expected);
  });

  it.each([
    ['tomorrow', 'UTC'],
    ['', 'UTC'],
    ['2026-03-02', 'UTC'],
    ['2026-02-30T10:00:00Z', 'UTC'],
    ['2026-03-02T25:00:00Z', 'UTC'],
    ['2026-03-02T10:00:00+01:00[Europe/Berlin]', 'UTC'],
    ['2026-03-02T10:00:00', 'Mars/Olympus'],
    ['0000-06-01T10:00:00Z', 'UTC'],
    ['9999-12-31T23:59:59-00:01', 'UTC'],
    ['9999-12-31T23:59', 'Pacific/Pago_Pago'],
    ['0001-01-01T00:30', 'Asia/Kathmandu'],
  ])('%s in %s → null', (input, zone) => {
    expect(parseInputTimestamp(input, zone)).toBeNull();
  });

  it('takes only instants of years 1 to 9999 in UTC, whatever the zone made of the wall-clock time', () => {
    const zones = ['Pacific/Kiritimati', 'Pacific/Pago_Pago', 'Etc/GMT+12', 'Asia/Kathmandu', 'America/St_Johns', 'UTC'];
    const text = fc
      .tuple(
        fc.constantFrom(0, 1, 2, 9998, 9999),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 28 }),
        fc.integer({ min: 0, max: 23 }),
      )
      .map(
        ([year, month, day, hour]) =>
          `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}T${String(hour).padStart(2, '0')}:30`,
      );
    fc.assert(
      fc.property(text, fc.constantFrom(...zones), (wall, zone) => {
        const meant = inputTimestampInstant(wall, zone);
        const parsed = parseInputTimestamp(wall, zone);
        expect(meant).not.toBeNull();
        expect(parsed).toBe(isStorableInstant(meant!) ? meant : null);
        if (parsed !== null) expect(new Date(parsed).toISOString()).toMatch(/^\d{4}-/); // never +010000-…, which PostgreSQL refuses
      }),
    );
    expect(iso(parseInputTimestamp('9999-12-31T23:59', 'Pacific/Kiritimati')!)).toBe('9999-12-31T09:59:00.000Z');
    expect([EARLIEST_INSTANT, LATEST_INSTANT].map(iso)).toEqual(['0001-01-01T00:00:00.000Z', '9999-12-31T23:59:59.999Z']);
  });
});

describe('formatInstantInZone', () => {
  it.each([
    { instant: '2026-03-02T09:00:00Z', zone: 'Europe/Berlin', expected: '2026-03-02T10:00:00.000+01:00' },
    { instant: '2026-03-02T09:00:00Z', zone: 'UTC', expected: '2026-03-02T09:00:00.000Z' },
    { instant: '2026-01-15T09:00:00Z', zone: 'Europe/London', expected: '2026-01-15T09:00:00.000Z' },
    { instant: '2026-07-15T09:00:00Z', zone: 'Europe/London', expected: '2026-07-15T10:00:00.000+01:00' },
    { instant: '2026-03-02T09:00:00.5Z', zone: 'Asia/Kolkata', expected: '2026-03-02T14:30:00.500+05:30' },
    { instant: '2027-01-10T00:00:00Z', zone: 'Pacific/Chatham', expected: '2027-01-10T13:45:00.000+13:45' },
    { instant: '2027-11-07T05:30:00Z', zone: 'America/New_York', expected: '2027-11-07T01:30:00.000-04:00' },
    { instant: '2027-11-07T06:30:00Z', zone: 'America/New_York', expected: '2027-11-07T01:30:00.000-05:00' },
  ])('$instant in $zone → $expected', ({ instant, zone, expected }) => {
    expect(formatInstantInZone(Date.parse(instant), zone)).toBe(expected);
    expect(formatInstantsInZone([Date.parse(instant)], zone)).toEqual([expected]);
  });
});

describe('small helpers', () => {
  it.each([
    ['2027-02-28', 1, '2027-03-01'],
    ['2028-02-28', 1, '2028-02-29'],
    ['2027-01-01', -1, '2026-12-31'],
    ['2027-03-01', 92, '2027-06-01'],
  ])('addDays(%s, %d) = %s', (date, days, expected) => {
    expect(addDays(date, days)).toBe(expected);
  });

  it.each([
    { date: '2027-03-14', zone: 'America/New_York', expected: '2027-03-14T05:00:00.000Z' },
    { date: '2027-03-14', zone: 'America/Havana', expected: '2027-03-14T05:00:00.000Z' },
    { date: '2027-09-05', zone: 'America/Santiago', expected: '2027-09-05T04:00:00.000Z' },
    { date: '2027-03-01', zone: 'Asia/Kolkata', expected: '2027-02-28T18:30:00.000Z' },
  ])('dayStartInstant($date, $zone) = $expected', ({ date, zone, expected }) => {
    expect(iso(dayStartInstant(date, zone))).toBe(expected);
  });

  it('localDateOf and countByLocalDate use the given zone', () => {
    const lateMonday = Date.parse('2027-03-01T23:30:00Z');
    const earlyTuesday = Date.parse('2027-03-02T00:30:00Z');
    expect(localDateOf(lateMonday, 'UTC')).toBe('2027-03-01');
    expect(localDateOf(lateMonday, 'Europe/Berlin')).toBe('2027-03-02');
    expect(countByLocalDate([earlyTuesday, lateMonday], 'UTC')).toEqual({ '2027-03-01': 1, '2027-03-02': 1 });
    expect(countByLocalDate([earlyTuesday, lateMonday], 'Europe/Berlin')).toEqual({ '2027-03-02': 2 });
    expect(countByLocalDate([lateMonday, earlyTuesday], 'America/Los_Angeles')).toEqual({ '2027-03-01': 2 });
  });
});

describe('properties of the zone helpers', () => {
  const zones = fc.constantFrom(
    'UTC',
    'Europe/Berlin',
    'America/New_York',
    'Asia/Kolkata',
    'Australia/Lord_Howe',
    'Pacific/Chatham',
    'America/Havana',
    'America/Santiago',
    'Asia/Kathmandu',
  );
  const epochDays = fc.integer({ min: isoDateToEpochDay('2026-01-01'), max: isoDateToEpochDay('2028-12-31') });
  const instants = fc.integer({ min: Date.UTC(2026, 0, 2), max: Date.UTC(2028, 11, 30) });

  it('calendar arithmetic agrees with Temporal.PlainDate', () => {
    fc.assert(
      fc.property(fc.integer({ min: -719_528, max: 2_932_896 }) /* 0000-01-01 … 9999-12-31 */, (epochDay) => {
        const date = Temporal.PlainDate.from('1970-01-01').add({ days: epochDay });
        expect(epochDayToIsoDate(epochDay)).toBe(date.toString());
        expect(isoDateToEpochDay(date.toString())).toBe(epochDay);
      }),
    );
  });

  it('the day table converts wall times exactly like localDateTimeToInstant, DST days included', () => {
    fc.assert(
      fc.property(zones, epochDays, fc.integer({ min: 0, max: 288 }), (zone, epochDay, fiveMinutes) => {
        const days = ZoneDays.build(zone, epochDay - 1, epochDay + 1);
        const time =
          fiveMinutes === 288
            ? '24:00'
            : `${String(Math.floor(fiveMinutes / 12)).padStart(2, '0')}:${String((fiveMinutes % 12) * 5).padStart(2, '0')}`;
        expect(days.wallToInstant(epochDay, parseWallTime(time))).toBe(localDateTimeToInstant(epochDayToIsoDate(epochDay), time, zone));
        expect(days.dayStart(epochDay)).toBe(temporalDayStart(epochDay, zone));
        expect(dayStartInstant(epochDayToIsoDate(epochDay), zone)).toBe(temporalDayStart(epochDay, zone));
      }),
      { numRuns: 400 },
    );
  });

  it('batch formatting equals one-by-one formatting, and parsing the output gives the instant back', () => {
    fc.assert(
      fc.property(zones, fc.array(instants, { minLength: 1, maxLength: 20 }), (zone, list) => {
        const formatted = formatInstantsInZone(list, zone);
        expect(formatted).toEqual(list.map((instant) => formatInstantInZone(instant, zone)));
        expect(formatted.map((text) => parseInputTimestamp(text, 'UTC'))).toEqual(list);
        for (const instant of list) expect(localDateOf(instant, zone)).toBe(formatInstantInZone(instant, zone).slice(0, 10));
      }),
      { numRuns: 150 },
    );
  });

  it('the day table puts every instant on its local date', () => {
    fc.assert(
      fc.property(zones, instants, (zone, instant) => {
        const days = ZoneDays.covering(zone, instant - 86_400_000, instant + 86_400_000);
        const day = days.dayOf(instant);
        expect(day === undefined ? undefined : epochDayToIsoDate(day)).toBe(temporalDate(instant, zone));
        expect(localDateOf(instant, zone)).toBe(temporalDate(instant, zone));
      }),
      { numRuns: 300 },
    );
  });

  // Zones whose history has what a day table can get wrong: whole dates skipped (Apia 2011-12-30, Kiritimati
  // 1994-12-31, Kwajalein 1993-08-21), clocks turned back across midnight (St John's at 00:01 until 2011, Casey 2010).
  const oddZones = fc.constantFrom(
    'Pacific/Apia',
    'Pacific/Kiritimati',
    'Pacific/Kwajalein',
    'America/St_Johns',
    'Antarctica/Casey',
    'Europe/Berlin',
    'Australia/Lord_Howe',
  );
  const centuries = fc.integer({ min: isoDateToEpochDay('1890-01-01'), max: isoDateToEpochDay('2110-12-31') });

  it('tables cut from the shared blocks give Temporal’s day starts and dates, across blocks, centuries and odd zones', () => {
    fc.assert(
      fc.property(fc.oneof(zones, oddZones), centuries, fc.integer({ min: 0, max: 140 }), (zone, firstDay, length) => {
        const lastDay = firstDay + length;
        const cut = ZoneDays.build(zone, firstDay, lastDay);
        const computed = ZoneDays.compute(zone, firstDay, lastDay);
        expect([cut.firstDay, cut.lastDay]).toEqual([computed.firstDay, computed.lastDay]);
        for (let day = firstDay; day <= lastDay + 1; day++) {
          expect(cut.dayStart(day)).toBe(temporalDayStart(day, zone));
          expect(computed.dayStart(day)).toBe(temporalDayStart(day, zone));
        }
        for (let day = firstDay; day <= lastDay; day++) {
          const noon = computed.wallToInstant(day, 12 * 3_600_000);
          expect([cut.wallToInstant(day, 12 * 3_600_000), cut.format(noon)]).toEqual([noon, formatInstantInZone(noon, zone)]);
          expect(localDateOf(noon, zone)).toBe(temporalDate(noon, zone));
        }
      }),
      { numRuns: 120 },
    );
  });

  it('the blocks give Temporal’s local date of any instant, in odd zones and centuries', () => {
    fc.assert(
      fc.property(fc.oneof(zones, oddZones), centuries, fc.integer({ min: 0, max: 86_399_999 }), (zone, day, ms) => {
        const instant = day * 86_400_000 + ms;
        expect(localDateOf(instant, zone)).toBe(temporalDate(instant, zone));
      }),
      { numRuns: 2000 },
    );
  });

  it.each([
    // The date skipped whole: it and the next start at the same instant, and the dates after it are right.
    ['dayStart', '2011-12-30', 'Pacific/Apia'],
    ['dayStart', '2011-12-31', 'Pacific/Apia'],
    ['dayStart', '2012-01-20', 'Pacific/Apia'],
    ['dayStart', '1995-01-01', 'Pacific/Kiritimati'],
    // The hour St John's repeated after midnight (00:01 back to 23:01): the earlier date, as Temporal says.
    ['date', '1987-10-25T02:31:00Z', 'America/St_Johns'],
    ['date', '2010-11-07T03:00:00Z', 'America/St_Johns'],
    ['date', '2010-03-04T20:00:00Z', 'Antarctica/Casey'],
  ])('%s of %s in %s is Temporal’s', (what, text, zone) => {
    if (what === 'dayStart') expect(dayStartInstant(text, zone)).toBe(temporalDayStart(isoDateToEpochDay(text), zone));
    else expect(localDateOf(Date.parse(text), zone)).toBe(temporalDate(Date.parse(text), zone));
  });

  it('refuses an instant or a date that is not a number (it would never end a table)', () => {
    expect(() => localDateOf(Number.NaN, 'UTC')).toThrow(RangeError);
    expect(() => formatInstantsInZone([Number.NaN], 'UTC')).toThrow(RangeError);
    expect(() => countByLocalDate([0, Number.NaN], 'UTC')).toThrow(RangeError);
    expect(() => ZoneDays.build('UTC', Number.NaN, Number.NaN)).toThrow(RangeError);
    expect(() => dayStartInstant('2027-02-30', 'UTC')).toThrow(RangeError);
  });

  it('knows a zone in any case, as IANA names are', () => {
    const instant = Date.parse('2027-03-01T23:30:00Z');
    expect([localDateOf(instant, 'europe/berlin'), localDateOf(instant, 'EUROPE/BERLIN')]).toEqual(['2027-03-02', '2027-03-02']);
  });

  it.each([
    ['0001-01-01T00:00:00Z', 'Pacific/Kiritimati'],
    ['0001-01-01T00:00:00Z', 'America/Adak'],
    ['9999-12-31T23:59:59.999Z', 'Pacific/Pago_Pago'],
    ['1969-12-31T23:59:59.999Z', 'Asia/Manila'],
  ])('the blocks know the local date of %s in %s, at the ends of the storable range', (text, zone) => {
    const instant = Date.parse(text);
    expect(localDateOf(instant, zone)).toBe(temporalDate(instant, zone));
    expect(dayStartInstant(localDateOf(instant, zone), zone)).toBe(temporalDayStart(isoDateToEpochDay(localDateOf(instant, zone)), zone));
  });
});
