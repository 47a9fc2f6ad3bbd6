import { QueryFailedError } from 'typeorm';
import { lsnValue, standbyFailure } from './replica-reads.js';

describe('reads from standbys: the pure parts', () => {
  it('orders LSNs as PostgreSQL does (high word, then low word, in hex)', () => {
    expect(lsnValue('0/16B3748')).toBe(0x16b3748n);
    expect(lsnValue('1/0')! > lsnValue('0/FFFFFFFF')!).toBe(true);
    expect(lsnValue('A/10')! > lsnValue('9/FFFFFFF0')!).toBe(true);
    expect(lsnValue(null)).toBeNull();
  });

  const failed = (code: string | undefined, message = 'failed') =>
    new QueryFailedError('SELECT 1', [], Object.assign(new Error(message), code === undefined ? {} : { code }));

  it.each([
    ['a refused connection', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }), 'down'],
    ['a connection cut', new Error('Connection terminated unexpectedly'), 'down'],
    ['the pool giving up', new Error('timeout exceeded when trying to connect'), 'down'],
    ['the server shutting down', failed('57P01'), 'down'],
    ['a connection failure', failed('08006'), 'down'],
    ['a recovery conflict', failed('40001'), 'conflict'],
    ['a write refused on a standby', failed('25006'), 'conflict'],
    ['a statement error of the read itself', failed('22012', 'division by zero'), null],
    ['an application error (404)', Object.assign(new Error('not found'), { code: 'NOT_FOUND' }), null],
  ])('%s → %s', (_, error, expected) => {
    expect(standbyFailure(error)).toBe(expected);
  });
});
