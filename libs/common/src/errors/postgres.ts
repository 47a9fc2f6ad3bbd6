/** What PostgreSQL said, read from a TypeORM QueryFailedError (or a bare pg error). */
export function postgresError(error: unknown): { code: string; constraint?: string } | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const driverError = 'driverError' in error ? (error as { driverError: unknown }).driverError : error;
  if (typeof driverError !== 'object' || driverError === null || !('code' in driverError)) return undefined;
  const { code, constraint } = driverError as { code: unknown; constraint?: unknown };
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return undefined;
  return { code, constraint: typeof constraint === 'string' ? constraint : undefined };
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
