import type { QueryRunner } from 'typeorm';
import { inlineParameters, type Statement } from './inline-parameters.js';
import { QUIET_STATEMENT_LOG, type StatementLogRights } from './statement-log.js';

/** The transaction a batch belongs to. */
export interface BatchTransaction {
  runner: QueryRunner;
  /** QUIET_STATEMENT_LOG has run in this transaction (it lasts until the transaction ends). */
  logQuiet: boolean;
}

type Query = (text: string, values?: unknown[]) => Promise<unknown>;

/**
 * The writes `TransactionHost.batched()` holds back (`write()`), and how they leave: all that wait go together in one
 * message just before the transaction's next other statement, or at the end of the batch. So the database runs every
 * statement in the order it was called (a read after a write sees it), and a transaction whose reads come first and
 * whose writes come last, as a booking's do, sends its writes in one round trip.
 *
 * Several statements fit in one message only in the simple protocol, which takes no parameters: the values are written
 * in as literals (inlineParameters), with the server's statement log quieted for the rest of the transaction first
 * (statement-log.ts). A role that may not quiet it gets its writes one bound statement after another.
 *
 * Every other statement of the transaction reaches PostgreSQL through its query runner's `query`, so for the length
 * of the batch that method sends the waiting writes first; `prepared()`, which uses the connection itself, calls
 * `flush()`.
 */
export class WriteBatch {
  private readonly waiting: Statement[] = [];
  /** The flush in progress: statements issued meanwhile wait for it, so none overtakes a write called before it. */
  private sending: Promise<void> = Promise.resolve();
  private readonly query: Query;
  /** The runner's own `query` property before the batch, if it had one (its class's method otherwise). */
  private readonly previous: PropertyDescriptor | undefined;

  constructor(
    private readonly transaction: BatchTransaction,
    private readonly rights: StatementLogRights,
  ) {
    const { runner } = transaction;
    const query = runner.query.bind(runner) as Query;
    this.query = query;
    this.previous = Object.getOwnPropertyDescriptor(runner, 'query');
    runner.query = (async (...args: Parameters<QueryRunner['query']>) => {
      // A rollback drops what waits: sent first, a failing write would keep the ROLLBACK from being sent at all.
      if (args[0] === 'ROLLBACK') this.waiting.length = 0;
      await this.flush();
      return (query as (...all: unknown[]) => Promise<unknown>)(...args);
    }) as QueryRunner['query'];
  }

  add(statement: Statement): void {
    this.waiting.push(statement);
  }

  /** Sends what waits; an error of any write surfaces here, to the statement that came after it or to the batch's end. */
  flush(): Promise<void> {
    const run = this.sending.then(() => this.send(this.waiting.splice(0)));
    this.sending = run.catch(() => undefined);
    return run;
  }

  /** The runner's `query` as it was. */
  close(): void {
    const { runner } = this.transaction;
    if (this.previous) Object.defineProperty(runner, 'query', this.previous);
    else delete (runner as Partial<QueryRunner>).query;
  }

  private async send(writes: Statement[]): Promise<void> {
    if (writes.length === 0) return;
    const { transaction } = this;
    if (writes.length > 1 && (await this.rights.mayQuiet((text) => this.query(text) as Promise<unknown[]>))) {
      const quiet = transaction.logQuiet ? [] : [QUIET_STATEMENT_LOG];
      transaction.logQuiet = true;
      await this.query([...quiet, ...writes.map(inlineParameters)].join(';\n'));
    } else {
      for (const { text, values } of writes) await this.query(text, [...values]);
    }
  }
}
