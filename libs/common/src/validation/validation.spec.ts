import { daysBetween, isCalendarDate } from './calendar-date.js';
import { isStorableTime } from './instant.js';
import { isIanaTimeZone } from './time-zone.js';

describe('isIanaTimeZone: the one time-zone check of the API', () => {
  it.each([
    ['Europe/Berlin', true],
    ['America/New_York', true],
    ['America/Argentina/Buenos_Aires', true],
    ['UTC', true],
    ['Asia/Kathmandu', true],
    ['Mars/Olympus', false],
    ['', false],
    ['+05:30', false],
    ['-03:00', false],
    ['2026-03-02T10:00Z', false],
    ['Europe/Berlin\u0000', false],
    ['x'.repeat(65), false],
  ])('%j → %s', (zone, expected) => {
    expect(isIanaTimeZone(zone)).toBe(expected);
  });
});

describe('calendar dates', () => {
  it.each([
    ['2027-02-28', true],
    ['2028-02-29', true],
    ['2027-02-29', false],
    ['2027-13-01', false],
    ['1899-12-31', false],
    ['27-01-01', false],
  ])('isCalendarDate(%s) = %s', (value, expected) => {
    expect(isCalendarDate(value)).toBe(expected);
  });

  it.each([
    ['2027-03-01', '2027-03-01', 0],
    ['2027-03-01', '2027-03-31', 30],
    ['2027-03-31', '2027-03-01', -30],
    ['2028-02-28', '2028-03-01', 2],
  ])('daysBetween(%s, %s) = %s', (from, to, days) => {
    expect(daysBetween(from, to)).toBe(days);
  });
});

describe('isStorableTime: years 1 to 9999 in UTC, after conversion', () => {
  it.each<[unknown, string, boolean]>([
    ['0001-01-01', 'UTC', true],
    ['0000-12-31', 'UTC', false],
    ['9999-12-31', 'UTC', true],
    ['9999-12-31T23:59:59Z', 'UTC', true],
    ['9999-12-31T23:59:59-00:01', 'UTC', false],
    ['9999-12-31T23:59', 'Pacific/Kiritimati', true],
    ['9999-12-31T23:59', 'Pacific/Pago_Pago', false],
    ['0001-01-01T05:00', 'Asia/Kathmandu', false],
    ['not a time', 'UTC', true], // the format is another rule's
    [new Date(Date.UTC(9999, 11, 31)), 'UTC', true],
    [new Date(8.64e15), 'UTC', false],
    [new Date('not a date'), 'UTC', true], // IsDate's to refuse
  ])('%s in %s → %s', (value, zone, expected) => {
    expect(isStorableTime(value, zone)).toBe(expected);
  });
});
