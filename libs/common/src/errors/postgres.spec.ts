import { isConcurrencyFailure, isDatabaseUnavailable, isForeignKeyViolation } from './postgres.js';

/** Errors as node-postgres, pg-pool and TypeORM raise them. */
function pgError(code: string, message = 'error', fields: { table?: string; constraint?: string; routine?: string } = {}): Error {
  return Object.assign(new Error(message), { code, severity: 'ERROR', ...fields });
}

function queryFailed(driverError: unknown): Error {
  return Object.assign(new Error('query failed'), { name: 'QueryFailedError', driverError });
}

describe('isDatabaseUnavailable', () => {
  it.each<[string, unknown, boolean]>([
    ['connection refused', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }), true],
    ['refused on every address', new AggregateError([Object.assign(new Error('refused'), { code: 'ECONNREFUSED' })]), true],
    ['reset', Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }), true],
    ['admin shutdown (57P01), wrapped', queryFailed(pgError('57P01', 'terminating connection due to administrator command')), true],
    ['starting up (57P03)', pgError('57P03', 'the database system is starting up'), true],
    ['statement timeout (57014)', queryFailed(pgError('57014', 'canceling statement due to statement timeout')), true],
    ['lock timeout (55P03)', pgError('55P03'), true],
    ['too many connections (53300)', pgError('53300'), true],
    ['a write on a standby mid-failover (25006)', queryFailed(pgError('25006', 'cannot execute INSERT in a read-only transaction')), true],
    ['connection exception class 08', pgError('08006'), true],
    ['pool connect timeout', new Error('timeout exceeded when trying to connect'), true],
    ['connection ended', new Error('Connection terminated unexpectedly'), true],
    ['released runner', Object.assign(new Error('released'), { name: 'QueryRunnerAlreadyReleasedError' }), true],
    ['unique violation', queryFailed(pgError('23505')), false],
    ['syntax error', queryFailed(pgError('42601', 'Connection terminated in a comment')), false],
    ['plain bug', new TypeError('x is undefined'), false],
    ['not an error', 'ECONNREFUSED', false],
  ])('%s → %s', (_name, error, expected) => {
    expect(isDatabaseUnavailable(error)).toBe(expected);
  });

  it('does not loop on a cyclic cause', () => {
    const error: Error & { cause?: unknown } = new Error('x');
    error.cause = error;
    expect(isDatabaseUnavailable(error)).toBe(false);
  });
});

describe('isForeignKeyViolation', () => {
  it.each([
    [queryFailed(pgError('23503')), true],
    [queryFailed(pgError('23505')), false],
  ])('%#', (error, expected) => expect(isForeignKeyViolation(error)).toBe(expected));
});

describe('isConcurrencyFailure', () => {
  it.each<[string, unknown, boolean]>([
    ['deadlock (40P01)', queryFailed(pgError('40P01')), true],
    ['serialization failure (40001)', pgError('40001'), true],
    [
      'a row DEFAULT caught while its month was attached (23514 on <table>_default, no constraint)',
      queryFailed(
        pgError('23514', 'new row for relation "domain_events_default" violates partition constraint', {
          table: 'domain_events_default',
          routine: 'ExecPartitionCheckEmitError',
        }),
      ),
      true,
    ],
    [
      'the job’s own ATTACH refused for a row DEFAULT holds (another routine)',
      pgError('23514', 'updated partition constraint for default partition "audit_entries_default" would be violated by some row', {
        table: 'audit_entries_default',
        routine: 'ATRewriteTable',
      }),
      false,
    ],
    [
      'a named CHECK constraint of the schema on a DEFAULT partition',
      pgError('23514', 'x', { table: 'audit_entries_default', constraint: 'chk', routine: 'ExecConstraints' }),
      false,
    ],
    [
      'a partition constraint of another partition',
      pgError('23514', 'x', { table: 'audit_entries_p2027_03', routine: 'ExecPartitionCheckEmitError' }),
      false,
    ],
    ['a domain check (no table)', pgError('23514', 'x', { constraint: 'positive' }), false],
    ['unique violation', queryFailed(pgError('23505', 'x', { table: 'bookings_default' })), false],
  ])('%s → %s', (_name, error, expected) => {
    expect(isConcurrencyFailure(error)).toBe(expected);
  });
});
