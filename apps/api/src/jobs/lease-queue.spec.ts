import { nextRetrySeconds } from './lease-queue.js';

describe('nextRetrySeconds', () => {
  it.each([
    [[60, 300, 1800], 1, 60],
    [[60, 300, 1800], 2, 300],
    [[60, 300, 1800], 3, 1800],
    [[60, 300, 1800], 4, null],
    [[], 1, null],
    [[0], 1, 0],
  ])('schedule %j after attempt %i: %j', (schedule, attempts, expected) => {
    expect(nextRetrySeconds(schedule, attempts)).toBe(expected);
  });
});
