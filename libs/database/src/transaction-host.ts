import { AsyncLocalStorage } from 'node:async_hooks';
import { createRequire } from 'node:module';
import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

/** pg's own conversion of a parameter to its text form, and its literal quoting (pg/lib/utils). */
const pgUtils = createRequire(import.meta.url)('pg/lib/utils') as {
  prepareValue(value: unknown): string | Buffer | null;
  escapeLiteral(text: string): string;
};

interface Write {
  text: string;
  values: readonly unknown[];
}

/** An open transaction: its manager, and the writes deferred by `batched()` until it sends them. */
interface Open {
  manager: EntityManager;
  batch?: Write[];
}

const IDENTIFIER_CHAR = /[A-Za-z0-9_]/;
const DOLLAR_TAG = /\$([A-Za-z_][A-Za-z0-9_]*)?\$/y;
const PLACEHOLDER = /\$(\d+)/y;

/** Where a quoted string or identifier opened before `from` ends (`''` and `""` inside are the quote itself). */
function closingQuote(text: string, from: number, quote: string, backslashEscapes: boolean): number {
  for (let i = from; i < text.length; i++) {
    if (backslashEscapes && text[i] === '\\') i++;
    else if (text[i] === quote) {
      if (text[i + 1] !== quote) return i + 1;
      i++;
    }
  }
  return text.length;
}

/** Where the string, quoted identifier, dollar-quoted body or comment that starts at `at` ends; -1 when none starts there. */
function endOfQuoted(text: string, at: number): number {
  const c = text[at];
  if (c === "'") return closingQuote(text, at + 1, "'", false);
  if ((c === 'E' || c === 'e') && text[at + 1] === "'" && !IDENTIFIER_CHAR.test(text[at - 1] ?? ''))
    return closingQuote(text, at + 2, "'", true);
  if (c === '"') return closingQuote(text, at + 1, '"', false);
  if (c === '-' && text[at + 1] === '-') {
    const end = text.indexOf('\n', at + 2);
    return end < 0 ? text.length : end + 1;
  }
  if (c === '/' && text[at + 1] === '*') {
    const end = text.indexOf('*/', at + 2);
    return end < 0 ? text.length : end + 2;
  }
  if (c === '$') {
    DOLLAR_TAG.lastIndex = at;
    const tag = DOLLAR_TAG.exec(text);
    if (tag) {
      const end = text.indexOf(tag[0], at + tag[0].length);
      return end < 0 ? text.length : end + tag[0].length;
    }
  }
  return -1;
}

/**
 * A statement with its parameters written in as literals, the way pg would send them: each value goes
 * through pg's `prepareValue` (dates, arrays, JSON) and `escapeLiteral`; a parameter's cast stays. `$n` inside a
 * string, a quoted identifier, a dollar-quoted body or a comment is text, not a parameter. A placeholder without a
 * value, or a value no placeholder takes, throws: the same statement with bound parameters would fail as well.
 */
export function inlineParameters({ text, values }: Write): string {
  const used = new Set<number>();
  let out = '';
  let copied = 0;
  for (let i = 0; i < text.length;) {
    const quotedEnd = endOfQuoted(text, i);
    if (quotedEnd >= 0) {
      i = quotedEnd;
      continue;
    }
    PLACEHOLDER.lastIndex = i;
    const placeholder = text[i] === '$' && !IDENTIFIER_CHAR.test(text[i - 1] ?? '') ? PLACEHOLDER.exec(text) : null;
    if (!placeholder) {
      i++;
      continue;
    }
    const index = Number(placeholder[1]);
    if (index < 1 || index > values.length) throw new Error(`Statement parameter $${index} has no value (${values.length} given)`);
    used.add(index);
    const value = pgUtils.prepareValue(values[index - 1]);
    const literal =
      value === null ? 'NULL' : Buffer.isBuffer(value) ? `'\\x${value.toString('hex')}'::bytea` : pgUtils.escapeLiteral(value);
    out += text.slice(copied, i) + literal;
    i += placeholder[0].length;
    copied = i;
  }
  if (used.size !== values.length) throw new Error(`Statement takes ${used.size} of its ${values.length} parameters`);
  return out + text.slice(copied);
}

/**
 * A batch carries its values as literal text, which PostgreSQL would copy into its server log with a statement that
 * fails (a refused double booking) or runs long: attendee data and mail bodies in a log no one reviews. The batch
 * turns that logging off for itself and back on after it; a bound statement is logged with `$n`, never its values.
 */
const QUIET_LOG = 'SET LOCAL log_min_error_statement = panic;\nSET LOCAL log_min_duration_statement = -1';
const USUAL_LOG = 'SET LOCAL log_min_error_statement TO DEFAULT;\nSET LOCAL log_min_duration_statement TO DEFAULT';
/** Neither can fail, so both may run inside the caller's transaction (PostgreSQL before 15 has no such privilege). */
const ROLE_LOG_RIGHTS = `SELECT current_setting('is_superuser') = 'on' AS superuser,
                                to_regprocedure('pg_catalog.has_parameter_privilege(text,text)') IS NOT NULL AS grantable`;
const GRANTED_LOG_RIGHTS = `SELECT has_parameter_privilege('log_min_error_statement', 'SET')
                                   AND has_parameter_privilege('log_min_duration_statement', 'SET')
                                   AND has_parameter_privilege('log_error_verbosity', 'SET') AS granted`;

/** What pg's client and pool take: a named statement is parsed and planned once per connection. */
interface PreparedClient {
  query(config: { name: string; text: string; values: readonly unknown[] }): Promise<{ rows: unknown[] }>;
}

/**
 * Transactions travel in context, not in parameters: a service method opens one with `transaction()`,
 * and every repository call inside it, in any module, finds it (AsyncLocalStorage follows the async
 * calls). A nested `transaction()` joins the open one. Each statement says which of four modes it runs in:
 * - `reads`: reads only; they join the open transaction (and see its writes and locks), or use the pool.
 * - `transactional` and `write()`: writes; they throw outside a transaction, so a forgotten `transaction()`
 *   fails loudly instead of running on autocommit.
 * - `outside(reason)`: the one way out of the caller's transaction, for the few statements that must not join it.
 * transaction-modes.spec.ts fails on a write through `reads`.
 */
@Injectable()
export class TransactionHost {
  private readonly current = new AsyncLocalStorage<Open>();
  /** Whether this role may set the two log settings (a superuser may; another role needs GRANT SET ON PARAMETER). */
  private mayQuietLog?: Promise<boolean>;

  constructor(private readonly dataSource: DataSource) {}

  /** For reads: the open transaction's manager, or the pool's outside one. Never for writes. */
  get reads(): EntityManager {
    return this.current.getStore()?.manager ?? this.dataSource.manager;
  }

  /** The open transaction's manager; throws when there is none. */
  get transactional(): EntityManager {
    return this.open().manager;
  }

  get inTransaction(): boolean {
    return this.current.getStore() !== undefined;
  }

  /**
   * The pool in autocommit, whatever transaction the caller has open: the one way out of it, for the few statements
   * that must not join it (a failed login that must count although the login rolls back; a queue's outcome written
   * after the send; bookkeeping that must never hold a request's locks). `reason` says why, where it is called.
   * Repositories never inject DataSource for this (module-boundaries.spec.ts).
   */
  outside(reason: string): EntityManager {
    if (reason.trim() === '') throw new Error('Say why this statement runs outside the caller’s transaction');
    return this.dataSource.manager;
  }

  transaction<T>(work: () => Promise<T>): Promise<T> {
    if (this.current.getStore()) return work();
    return this.dataSource.transaction((manager) => this.current.run({ manager }, work));
  }

  /**
   * A write that returns nothing the caller reads: sent at once, or, inside `batched()`, kept and sent
   * with the transaction's other writes in one round trip.
   */
  async write(text: string, values: readonly unknown[]): Promise<void> {
    const open = this.open();
    if (open.batch) open.batch.push({ text, values });
    else await open.manager.query(text, [...values]);
  }

  /**
   * Runs `work` in the open transaction with its writes (`write()`) deferred, then sends them all as one
   * multi-statement query, parameters written in as literals (the simple protocol takes several statements,
   * the extended one a single one), with the server's statement logging off around them (QUIET_LOG). A hot
   * transaction of five or six outbox and row writes becomes one round trip. A role that may not change those
   * settings gets its writes one by one, bound. Reads inside `work` must not need the deferred writes; an error
   * of any write surfaces here.
   */
  async batched<T>(work: () => Promise<T>): Promise<T> {
    const open = this.open();
    if (open.batch) return work();
    open.batch = [];
    try {
      const result = await work();
      const writes = open.batch.splice(0);
      if (writes.length > 1 && (await this.quietLogAllowed(open.manager)))
        await open.manager.query([QUIET_LOG, ...writes.map(inlineParameters), USUAL_LOG].join(';\n'));
      else for (const { text, values } of writes) await open.manager.query(text, [...values]);
      return result;
    } finally {
      open.batch = undefined;
    }
  }

  /**
   * For a transaction that may break a unique index over personal data (a user's or member's email): PostgreSQL logs
   * the duplicate key's value in the error's DETAIL line, which `terse` leaves out for the rest of the transaction.
   * Without the right to set it (see quietLogAllowed), nothing changes.
   */
  async keepErrorDetailsOutOfLog(): Promise<void> {
    const open = this.open();
    if (await this.quietLogAllowed(open.manager)) await open.manager.query('SET LOCAL log_error_verbosity = terse');
  }

  /**
   * Asked once per process, on the transaction's own connection (a second one from the pool could wait forever when
   * every connection is held by a transaction waiting here). An error is not remembered: the next batch asks again.
   */
  private quietLogAllowed(manager: EntityManager): Promise<boolean> {
    this.mayQuietLog ??= (async () => {
      const [role]: { superuser: boolean; grantable: boolean }[] = await manager.query(ROLE_LOG_RIGHTS);
      if (role?.superuser) return true;
      if (!role?.grantable) return false;
      const [rights]: { granted: boolean }[] = await manager.query(GRANTED_LOG_RIGHTS);
      return rights?.granted === true;
    })().catch((error: unknown) => {
      this.mayQuietLog = undefined;
      throw error;
    });
    return this.mayQuietLog;
  }

  private open(): Open {
    const open = this.current.getStore();
    if (!open) throw new Error('This write must run inside TransactionHost.transaction()');
    return open;
  }

  /**
   * A hot statement as a named prepared statement, on the open transaction's connection or the pool's:
   * PostgreSQL parses it once per connection and, after a few runs, keeps its plan. For a statement
   * that joins several tables, planning costs more than running it (an API-key lookup with its acting
   * user ran at a third of the rate of a primary-key lookup when planned every time, and at its rate
   * prepared). `name` must be unique to `text` across the process.
   */
  async prepared<T>(name: string, text: string, values: readonly unknown[]): Promise<T[]> {
    const manager = this.current.getStore()?.manager;
    const client = manager?.queryRunner
      ? ((await manager.queryRunner.connect()) as PreparedClient)
      : (this.dataSource.driver as unknown as { master: PreparedClient }).master;
    return (await client.query({ name, text, values })).rows as T[];
  }
}
