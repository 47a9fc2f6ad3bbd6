import fc from 'fast-check';
import { decideOutcome, MAX_RETRY_AFTER_SECONDS, parseRetryAfter, retryDelaySeconds } from './retry-policy.js';

const NOW = Date.parse('2026-03-02T09:00:00.000Z');
const schedule = [5, 300, 1800];
const base = { schedule, nowMs: NOW, maxAttempts: schedule.length + 1, random: () => 0.5 };

describe('retry policy', () => {
  it.each([
    [200, 1, 'succeeded'],
    [204, 4, 'succeeded'],
    [410, 1, 'gone'],
    [500, 1, 'retry'],
    [302, 1, 'retry'],
    [null, 3, 'retry'],
    [500, 4, 'failed'],
    [null, 4, 'failed'],
  ] as const)('status %s on attempt %i → %s', (status, attempts, kind) => {
    expect(decideOutcome({ ...base, status, attempts }).kind).toBe(kind);
  });

  it('follows the schedule, N delays for N + 1 attempts, lengthened by up to 10 % and never shortened', () => {
    expect(decideOutcome({ ...base, status: 500, attempts: 1, random: () => 0 })).toEqual({ kind: 'retry', delaySeconds: 5 });
    expect(decideOutcome({ ...base, status: 500, attempts: 3, random: () => 0 })).toEqual({ kind: 'retry', delaySeconds: 1800 });
    expect(retryDelaySeconds({ ...base, attempts: 2, random: () => 0 })).toBe(300);
    expect(retryDelaySeconds({ ...base, attempts: 2, random: () => 0.5 })).toBeCloseTo(315);
    expect(retryDelaySeconds({ ...base, attempts: 2, random: () => 0.999999 })).toBeCloseTo(330);
  });

  it('never retries sooner than the schedule says, whatever the random draw', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (attempts, draw) => {
        const delay = retryDelaySeconds({ ...base, attempts, random: () => draw });
        const scheduled = schedule[Math.min(attempts - 1, schedule.length - 1)];
        return delay >= scheduled && delay <= scheduled * 1.1;
      }),
    );
  });

  it('repeats the last delay when manual retries go past the schedule', () => {
    expect(decideOutcome({ ...base, status: 500, attempts: 4, maxAttempts: 6, random: () => 0 })).toEqual({
      kind: 'retry',
      delaySeconds: 1800,
    });
  });

  it('honours a longer Retry-After, in seconds or as a date, and caps it', () => {
    expect(retryDelaySeconds({ ...base, attempts: 1, retryAfter: '120' })).toBe(120);
    expect(retryDelaySeconds({ ...base, attempts: 1, retryAfter: '1', random: () => 0 })).toBe(5);
    expect(retryDelaySeconds({ ...base, attempts: 1, retryAfter: new Date(NOW + 60_000).toUTCString() })).toBe(60);
    expect(parseRetryAfter('999999999', NOW)).toBe(MAX_RETRY_AFTER_SECONDS);
    expect(parseRetryAfter('soon', NOW)).toBeNull();
    expect(parseRetryAfter(undefined, NOW)).toBeNull();
    expect(parseRetryAfter(['30', '40'], NOW)).toBe(30);
  });
});
