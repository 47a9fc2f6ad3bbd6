import { QueryFailedError, type QueryRunner } from 'typeorm';
import type { DeferredBegin } from './deferred-begin.js';
import type { Statement } from './inline-parameters.js';
import { PipelinedStatements, runPipelined, type SubmittableClient } from './pipelined-statements.js';

/** The transaction a batch belongs to. */
export interface BatchTransaction {
  runner: QueryRunner;
  begin: DeferredBegin;
}

type Query = (text: string, values?: unknown[]) => Promise<unknown>;

/**
 * The writes `TransactionHost.batched()` holds back (`write()`), and how they leave: all that wait go together in one
 * round trip just before the transaction's next other statement, or at the end of the batch. So the database runs every
 * statement in the order it was called (a read after a write sees it), and a transaction whose reads come first and
 * whose writes come last, as a booking's do, sends its writes in one round trip.
 *
 * They leave pipelined over the extended protocol (pipelined-statements.ts): each a named statement with bound values,
 * parsed and planned once per connection, all answered after one Sync; with the transaction's `START TRANSACTION`
 * (and the locks held back with it) ahead of them when nothing was sent before. (Until issue 55 they left as one
 * simple-protocol message with their values written in as literals, parsed and planned at every booking: 29 % of
 * PostgreSQL's time on a booking.)
 *
 * Every other statement of the transaction reaches PostgreSQL through its query runner's `query`, so for the length
 * of the batch that method sends the waiting writes first; `prepared()`, which uses the connection itself, calls
 * `flush()`.
 */
export class WriteBatch {
  private readonly waiting: Statement[] = [];
  /** The flush in progress: statements issued meanwhile wait for it, so none overtakes a write called before it. */
  private sending: Promise<void> = Promise.resolve();
  /** The runner's own `query` property before the batch, if it had one (its class's method otherwise). */
  private readonly previous: PropertyDescriptor | undefined;
  /** `commit()` sent the transaction's COMMIT with its last writes: TypeORM's own COMMIT is then not sent. */
  private committed = false;

  constructor(private readonly transaction: BatchTransaction) {
    const { runner } = transaction;
    const query = runner.query.bind(runner) as Query;
    this.previous = Object.getOwnPropertyDescriptor(runner, 'query');
    runner.query = (async (...args: Parameters<QueryRunner['query']>) => {
      // A rollback drops what waits: sent first, a failing write would keep the ROLLBACK from being sent at all.
      if (args[0] === 'ROLLBACK') this.waiting.length = 0;
      if (args[0] === 'COMMIT' && this.committed) return undefined;
      await this.flush();
      return (query as (...all: unknown[]) => Promise<unknown>)(...args);
    }) as QueryRunner['query'];
  }

  add(statement: Statement): void {
    this.waiting.push(statement);
  }

  /** Sends what waits; an error of any write surfaces here, to the statement that came after it or to the batch's end. */
  flush(): Promise<void> {
    const run = this.sending.then(() => this.send(this.waiting.splice(0), false));
    this.sending = run.catch(() => undefined);
    return run;
  }

  /**
   * The transaction's end (TransactionHost.transaction, once nothing else will run in it): what waits is sent with the
   * COMMIT after it, in the same round trip, and the COMMIT TypeORM then sends is not; with nothing waiting, nothing is
   * sent and TypeORM's COMMIT goes as usual. A failing write or COMMIT surfaces here, and the transaction is over
   * (TypeORM's ROLLBACK after it finds none in progress, which PostgreSQL only warns about).
   */
  commit(): Promise<void> {
    const run = this.sending.then(() => this.send(this.waiting.splice(0), true));
    this.sending = run.catch(() => undefined);
    return run;
  }

  /** The runner's `query` as it was. */
  close(): void {
    const { runner } = this.transaction;
    if (this.previous) Object.defineProperty(runner, 'query', this.previous);
    else delete (runner as Partial<QueryRunner>).query;
  }

  private async send(writes: Statement[], commit: boolean): Promise<void> {
    if (writes.length === 0) return;
    const { runner, begin } = this.transaction;
    const client = (await runner.connect()) as SubmittableClient;
    const opening = begin.take();
    const statements = [...opening, ...writes, ...(commit ? [{ text: 'COMMIT', values: [] }] : [])];
    const pipeline = new PipelinedStatements(statements);
    try {
      await runPipelined(client, pipeline);
      this.committed = commit;
    } catch (error) {
      // Nothing reached the server (a value pg cannot send, a connection already lost): the transaction has not begun.
      if (!pipeline.written) begin.restore(opening);
      // As TypeORM reports a statement's failure (its driverError is pg's); the values stay out of it.
      throw new QueryFailedError(pipeline.text, undefined, error as Error);
    }
  }
}
