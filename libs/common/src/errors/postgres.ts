/** What PostgreSQL said, read from a TypeORM QueryFailedError (or a bare pg error). */
export function postgresError(error: unknown): { code: string; constraint?: string; table?: string; routine?: string } | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const driverError = 'driverError' in error ? (error as { driverError: unknown }).driverError : error;
  if (typeof driverError !== 'object' || driverError === null || !('code' in driverError)) return undefined;
  const { code, constraint, table, routine } = driverError as { code: unknown; constraint?: unknown; table?: unknown; routine?: unknown };
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return undefined;
  const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
  return { code, constraint: text(constraint), table: text(table), routine: text(routine) };
}

/** A unique index refused the write; with `constraint`, that particular one. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const pg = postgresError(error);
  return pg?.code === '23505' && (constraint === undefined || pg.constraint === constraint);
}

/** An exclusion constraint refused the write (bookings: the host already has a meeting then). */
export function isExclusionViolation(error: unknown): boolean {
  return postgresError(error)?.code === '23P01';
}

/** A foreign key refused the write: the referenced row is gone (e.g. removed by a concurrent transaction). */
export function isForeignKeyViolation(error: unknown): boolean {
  return postgresError(error)?.code === '23503';
}

/** Socket-level failures reaching the database server. */
const NETWORK_ERRNOS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** What node-postgres and its pool say when the connection is gone or never came (they set no code). */
const DRIVER_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Query read timeout|is not queryable|connection error|Connection is closed/i;

/**
 * The database is gone, restarting, overloaded or too slow, rather than refusing this request: a
 * connection failure (SQLSTATE class 08, 57P01–57P03, socket errors, the pool's connect timeout), a
 * statement cancelled by `statement_timeout` (57014), a lock wait given up (55P03), too many connections
 * (53300), or a write that reached a standby (25006, read-only transaction: during a failover, before the proxy sends
 * connections to the new primary, or a demoted primary's session). The request answers 503 and may be retried.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  const seen = new Set<unknown>();
  const check = (candidate: unknown): boolean => {
    if (typeof candidate !== 'object' || candidate === null || seen.has(candidate)) return false;
    seen.add(candidate);
    const { code, message, driverError, errors, cause } = candidate as {
      code?: unknown;
      message?: unknown;
      driverError?: unknown;
      errors?: unknown;
      cause?: unknown;
    };
    if (typeof code === 'string') {
      if (/^08[0-9A-Z]{3}$/.test(code) || ['57P01', '57P02', '57P03', '57014', '55P03', '53300', '25006'].includes(code)) return true;
      if (NETWORK_ERRNOS.has(code)) return true;
    }
    if (typeof message === 'string' && DRIVER_MESSAGES.test(message) && postgresError(candidate) === undefined) return true;
    // TypeORM releases a transaction's connection when the connection fails; the transaction's next query says so.
    const name = (candidate as { name?: unknown }).name;
    if (name === 'QueryRunnerAlreadyReleasedError' || name === 'QueryRunnerProviderAlreadyReleasedError') return true;
    return check(driverError) || check(cause) || (Array.isArray(errors) && errors.some(check));
  };
  return check(error);
}

/**
 * A transaction PostgreSQL ended because it lost to a concurrent one: a deadlock (40P01), a serialization failure
 * (40001), or a row routed to a partitioned table's DEFAULT partition while another transaction attached the partition
 * of the row's month (isPartitionAttachRace).
 */
export function isConcurrencyFailure(error: unknown): boolean {
  const code = postgresError(error)?.code;
  return code === '40P01' || code === '40001' || isPartitionAttachRace(error);
}

/**
 * PostgreSQL routes an inserted row to a partition before it locks it: a row for a month with no partition yet goes to
 * the DEFAULT partition (`<table>_default`, docs/operating/partitions.md), and when the monthly job attaches that
 * month's partition meanwhile, the insert waits for the job's lock, then finds the DEFAULT partition's constraint
 * changed and refuses its own row: 23514 from the executor's partition check (`ExecPartitionCheckEmitError`; the job's
 * own ATTACH refused for a row DEFAULT holds says 23514 from another routine), naming the partition and no constraint
 * of ours (every CHECK constraint of the schema has a name). The statement wrote nothing; the same request sent again
 * goes to the new partition.
 */
export function isPartitionAttachRace(error: unknown): boolean {
  const pg = postgresError(error);
  if (pg?.code !== '23514' || pg.constraint !== undefined || pg.routine !== 'ExecPartitionCheckEmitError') return false;
  return /_default$/.test(pg.table ?? '');
}
