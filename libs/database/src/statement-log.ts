/*
 * Keeping values out of PostgreSQL's own log. Statements bind their values (batches too: TransactionHost.batched), so
 * the server logs them with `$n`; the values stay out when the role has log_parameter_max_length = 0 (migration
 * QuietParameterLog, docs/operating/deployment.md § The database role). What is left is a unique violation's DETAIL
 * line, which quotes the duplicate key: TERSE_ERRORS, for the transactions that may break a unique index over personal
 * data.
 */

/** The rest of the transaction logs an error's message without its DETAIL line (a duplicate key's value). */
export const TERSE_ERRORS = 'SET LOCAL log_error_verbosity = terse';

/** Neither can fail, so both may run inside the caller's transaction (PostgreSQL before 15 has no such privilege). */
const ROLE = `SELECT current_setting('is_superuser') = 'on' AS superuser,
                     to_regprocedure('pg_catalog.has_parameter_privilege(text,text)') IS NOT NULL AS grantable`;
const GRANTED = `SELECT has_parameter_privilege('log_error_verbosity', 'SET') AS granted`;

/**
 * Whether this role may change the setting above: a superuser may; another role needs `GRANT SET ON
 * PARAMETER` (PostgreSQL 15+). Asked once per process, with `query` on the caller's own connection (a second one from the pool
 * could wait forever when every connection is held by a transaction waiting here). An error is not remembered: the
 * next caller asks again.
 */
export class StatementLogRights {
  private answer?: Promise<boolean>;

  mayQuiet(query: (text: string) => Promise<unknown[]>): Promise<boolean> {
    this.answer ??= (async () => {
      const [role] = (await query(ROLE)) as { superuser: boolean; grantable: boolean }[];
      if (role?.superuser) return true;
      if (!role?.grantable) return false;
      const [rights] = (await query(GRANTED)) as { granted: boolean }[];
      return rights?.granted === true;
    })().catch((error: unknown) => {
      this.answer = undefined;
      throw error;
    });
    return this.answer;
  }
}
