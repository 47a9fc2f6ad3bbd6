import { AppError } from './errors/app-error.js';
import { LIMIT_WINDOW_MS, admitWithinHour } from './hourly-limit.js';

const NOW = Date.UTC(2027, 2, 1, 12);
const at = (msAgo: number): Date => new Date(NOW - msAgo);

function refusal(made: readonly Date[], limit: number): AppError | undefined {
  try {
    admitWithinHour(made, limit, NOW, 'too many');
    return undefined;
  } catch (error) {
    return error as AppError;
  }
}

describe('admitWithinHour', () => {
  it.each([
    ['nothing made', [], 3, undefined],
    ['one under the limit', [at(1_000), at(2_000)], 3, undefined],
    ['at the limit: the oldest of the newest three frees a place 59 min 57 s from now', [at(1_000), at(2_000), at(3_000)], 3, '3597'],
    ['the newest `limit` decide, not older rows', [at(1_000), at(10 * 60_000), at(20 * 60_000)], 2, '3000'],
    ['a place freeing within the second waits 1 s', [at(LIMIT_WINDOW_MS - 10)], 1, '1'],
    ['a place already free (clock past it) still says 1 s', [at(LIMIT_WINDOW_MS + 10)], 1, '1'],
  ])('%s', (_name, made, limit, retryAfter) => {
    const error = refusal(made, limit);
    expect(error?.headers?.['Retry-After']).toBe(retryAfter);
    if (error !== undefined) {
      expect(error.status).toBe(429);
      expect(error.code).toBe('RATE_LIMITED');
      expect(error.message).toBe('too many');
    }
  });
});
