import fc from 'fast-check';
import { layOut, minutesOn } from './grid-layout';

describe('minutesOn: a block’s rows by wall-clock time', () => {
  it.each([
    [
      '09:00 in New York the day before the spring change (EST)',
      '2027-03-13',
      'America/New_York',
      '2027-03-13T14:00:00Z',
      '2027-03-13T15:00:00Z',
      [540, 600],
    ],
    [
      '09:00 in New York on the day of the spring change (EDT)',
      '2027-03-14',
      'America/New_York',
      '2027-03-14T13:00:00Z',
      '2027-03-14T14:00:00Z',
      [540, 600],
    ],
    [
      '09:00 in Berlin on the day of the autumn change',
      '2027-10-31',
      'Europe/Berlin',
      '2027-10-31T08:00:00Z',
      '2027-10-31T08:30:00Z',
      [540, 570],
    ],
    [
      'across 01:00–04:00 on the spring-forward night: three hours on the clock, two elapsed',
      '2027-03-14',
      'America/New_York',
      '2027-03-14T06:00:00Z',
      '2027-03-14T08:00:00Z',
      [60, 240],
    ],
    [
      'the part before midnight of a meeting that runs past it',
      '2027-03-10',
      'UTC',
      '2027-03-10T23:30:00Z',
      '2027-03-11T00:30:00Z',
      [1410, 1440],
    ],
    ['the part after midnight of the same meeting', '2027-03-11', 'UTC', '2027-03-10T23:30:00Z', '2027-03-11T00:30:00Z', [0, 30]],
    ['a meeting on another day', '2027-03-12', 'UTC', '2027-03-10T10:00:00Z', '2027-03-10T11:00:00Z', null],
    ['a meeting ending at the day’s first instant', '2027-03-11', 'UTC', '2027-03-10T23:00:00Z', '2027-03-11T00:00:00Z', null],
  ])('%s', (_name, date, zone, start, end, expected) => {
    expect(minutesOn(date, zone, start, end)).toEqual(expected);
  });
});

describe('layOut: overlapping blocks side by side', () => {
  it('puts two blocks at one time in two lanes and a later one back in the full width', () => {
    const placed = layOut([
      { value: 'a', from: 600, to: 660 },
      { value: 'b', from: 600, to: 660 },
      { value: 'c', from: 700, to: 760 },
    ]);
    expect(placed.map(({ value, lane, lanes }) => [value, lane, lanes])).toEqual([
      ['a', 0, 2],
      ['b', 1, 2],
      ['c', 0, 1],
    ]);
  });

  it('never lets two blocks that overlap in time share a lane, and every lane fits its run', () => {
    const span = fc
      .tuple(fc.integer({ min: 0, max: 1400 }), fc.integer({ min: 1, max: 240 }))
      .map(([from, length]) => ({ from, to: from + length }));
    fc.assert(
      fc.property(fc.array(span, { maxLength: 25 }), (spans) => {
        const placed = layOut(spans.map((s, index) => ({ value: index, ...s })));
        expect(placed).toHaveLength(spans.length);
        for (const item of placed) expect(item.lane).toBeLessThan(item.lanes);
        for (const a of placed) {
          for (const b of placed) {
            if (a === b || !(a.from < b.to && b.from < a.to)) continue;
            // Overlapping in time: in one run (same width), different lanes, so side by side.
            expect(a.lanes).toBe(b.lanes);
            expect(a.lane).not.toBe(b.lane);
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});
