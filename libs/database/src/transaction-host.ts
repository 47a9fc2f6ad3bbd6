import { AsyncLocalStorage } from 'node:async_hooks';
import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { inlineParameters } from './inline-parameters.js';
import { readsManager, refuseLocks, takesLocks } from './locking-reads.js';
import { StatementLogRights, TERSE_ERRORS } from './statement-log.js';
import { type BatchTransaction, WriteBatch } from './write-batch.js';
import { PIPELINED_NAME_PREFIX, PipelinedStatements, runPipelined, type SubmittableClient } from './pipelined-statements.js';
import { DeferredBegin } from './deferred-begin.js';
import { destroyConnectionsOnClientTimeout } from './client-timeouts.js';
import { pinnedReads } from './replica-reads.js';

/** An open transaction: its manager, the one `reads` gives (made when first asked), and the batch `batched()` holds. */
interface Open extends BatchTransaction {
  manager: EntityManager;
  reads?: EntityManager;
  batch?: WriteBatch;
  begin: DeferredBegin;
}

/**
 * Something that writes in every transaction just before it commits (the audit log's entry of the request), and learns
 * whether the transaction committed. It is called from inside the transaction: its `write()`s join it, so what it
 * writes exists exactly when the transaction's other changes do.
 */
export interface TransactionParticipant {
  beforeCommit(): Promise<void>;
  settled(committed: boolean): void;
}

/** What pg's client and pool take: a named statement is parsed and planned once per connection. */
interface PreparedClient {
  query(config: { name: string; text: string; values: readonly unknown[] }): Promise<{ rows: unknown[] }>;
}

interface Emitter {
  on(event: string, listener: (value: Emitter) => void): unknown;
}

/**
 * Every pooled connection keeps an `error` listener for its whole life. pg emits `error` on a connected client whose
 * socket closes while no query runs; the pool listens only while the client is idle and TypeORM only while a query
 * runner holds it, so a connection cut in between (HAProxy's shutdown-sessions in a failover, a killed primary)
 * crashed the process with an unhandled 'error' event (the failover drill's worker did). The client is marked
 * unusable either way: its next query fails as "not queryable" (a 503) and the pool discards it on release.
 */
const guarded = new WeakSet<object>();
function guardPooledConnections(dataSource: DataSource): void {
  const pool = (dataSource.driver as unknown as { master?: Emitter }).master;
  if (!pool || typeof pool.on !== 'function' || guarded.has(pool)) return;
  guarded.add(pool);
  const guard = (client: Emitter): void => {
    if (guarded.has(client)) return;
    guarded.add(client);
    client.on('error', () => undefined);
  };
  pool.on('connect', guard);
  pool.on('acquire', guard);
}

/**
 * Transactions travel in context, not in parameters: a service method opens one with `transaction()`,
 * and every repository call inside it, in any module, finds it (AsyncLocalStorage follows the async
 * calls). A nested `transaction()` joins the open one. Each statement says which of four modes it runs in:
 * - `reads`: reads only; they join the open transaction (and see its writes and locks), or use the pool. A statement
 *   that takes locks is refused through it when it runs (locking-reads.ts).
 * - `transactional` and `write()`: writes and locks; they throw outside a transaction, so a forgotten `transaction()`
 *   fails loudly instead of running on autocommit.
 * - `outside(reason)`: the one way out of the caller's transaction, for the few statements that must not join it.
 * transaction-modes.spec.ts fails on a write through `reads`.
 */
@Injectable()
export class TransactionHost {
  private readonly current = new AsyncLocalStorage<Open>();
  private readonly poolReads: EntityManager;
  private readonly logRights = new StatementLogRights();
  /** Prepared statements' names already checked for locks (see prepared()). */
  private readonly lockFree = new Set<string>();
  private readonly participants: TransactionParticipant[] = [];

  constructor(private readonly dataSource: DataSource) {
    this.poolReads = readsManager(dataSource);
    guardPooledConnections(dataSource);
    destroyConnectionsOnClientTimeout(
      (dataSource.driver as unknown as { master?: Parameters<typeof destroyConnectionsOnClientTimeout>[0] }).master,
    );
  }

  /**
   * For reads: the open transaction's connection, or outside one the standby connection ReplicaReads chose for the
   * reads running now (replica-reads.ts), or the pool's. Never for writes or locks.
   */
  get reads(): EntityManager {
    const open = this.current.getStore();
    if (!open) return pinnedReads()?.reads ?? this.poolReads;
    return (open.reads ??= readsManager(this.dataSource, open.runner));
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

  /**
   * Runs `work` in a transaction, or in the caller's. Its `START TRANSACTION` leaves with its first statement when that
   * is a `lock()` (deferred-begin.ts). With `batched`, the whole transaction is one `batched()`: its writes and its
   * participants' (the audit entry) leave together before its `COMMIT` (an error of theirs is thrown from here).
   */
  async transaction<T>(work: () => Promise<T>, options: { batched?: boolean } = {}): Promise<T> {
    if (this.current.getStore()) return options.batched ? this.batched(work) : work();
    const runner = this.dataSource.createQueryRunner();
    const open: Open = { manager: runner.manager, runner, begin: new DeferredBegin(runner) };
    const participants = [...this.participants];
    let committed = false;
    try {
      const result = await runner.manager.transaction(() =>
        this.current.run(open, async () => {
          if (options.batched) open.batch = new WriteBatch(open);
          const result = await work();
          for (const participant of participants) await participant.beforeCommit();
          // The last writes and the COMMIT in one round trip.
          await open.batch?.commit();
          return result;
        }),
      );
      committed = true;
      return result;
    } finally {
      open.batch?.close();
      open.batch = undefined;
      open.begin.close();
      await runner.release();
      for (const participant of participants) participant.settled(committed);
    }
  }

  /**
   * A statement that only takes locks (`pg_advisory_xact_lock`; its rows are not read), as the first of a transaction:
   * it travels with the transaction's `START TRANSACTION` in one message, its values written in as literals, and such a
   * message may reach the server's log (a slow lock wait): its values name what is locked (ids), never a person. Later
   * in a transaction it is an ordinary statement.
   *
   * With `withNext`, a first lock is not sent now but held back with `START TRANSACTION` and leaves ahead of the
   * transaction's next statement, in its round trip: a `prepared()` read, the batched writes, or any other (one message
   * with `START TRANSACTION`, as above). The server takes the lock before it runs that statement, so what the
   * transaction reads and writes is read and written under it, as before; what changes is that the lock is held, and a
   * lock wait that fails fails, only once that statement has been sent. For a caller whose next step is a read.
   */
  async lock(text: string, values: readonly unknown[], options: { withNext?: boolean } = {}): Promise<void> {
    if (!takesLocks(text)) throw new Error('lock() is for statements that take locks');
    const open = this.open();
    await open.batch?.flush();
    if (open.begin.pending && options.withNext) open.begin.hold({ text, values });
    else if (open.begin.pending) await open.begin.sendWith(inlineParameters({ text, values }));
    else await open.manager.query(text, [...values]);
  }

  /** Adds a participant to every transaction opened from now on (see TransactionParticipant). */
  participate(participant: TransactionParticipant): void {
    this.participants.push(participant);
  }

  /**
   * A write that returns nothing the caller reads: sent at once, or, inside `batched()`, held until the transaction's
   * next other statement or the batch's end and sent with the writes held with it.
   */
  async write(text: string, values: readonly unknown[]): Promise<void> {
    const open = this.open();
    if (open.batch) open.batch.add({ text, values });
    else await open.manager.query(text, [...values]);
  }

  /**
   * Runs `work` in the open transaction with its `write()`s held back and sent together (write-batch.ts): in call
   * order with every other statement, and in one round trip when they come after the reads, as a booking's do. A hot
   * transaction of five or six outbox and row writes becomes one round trip. An error of a held write surfaces at the
   * statement after it or here.
   */
  async batched<T>(work: () => Promise<T>): Promise<T> {
    const open = this.open();
    if (open.batch) return work();
    const batch = new WriteBatch(open);
    open.batch = batch;
    try {
      const result = await work();
      await batch.flush();
      return result;
    } finally {
      batch.close();
      open.batch = undefined;
    }
  }

  /**
   * For a transaction that may break a unique index over personal data (a user's or member's email): PostgreSQL logs
   * the duplicate key's value in the error's DETAIL line, which `terse` leaves out for the rest of the transaction.
   * Without the right to set it (statement-log.ts), nothing changes.
   */
  async keepErrorDetailsOutOfLog(): Promise<void> {
    const { manager } = this.open();
    if (await this.logRights.mayQuiet((text) => manager.query(text))) await manager.query(TERSE_ERRORS);
  }

  private open(): Open {
    const open = this.current.getStore();
    if (!open) throw new Error('This write must run inside TransactionHost.transaction()');
    return open;
  }

  /**
   * A hot read as a named prepared statement, on the open transaction's connection or the pool's:
   * PostgreSQL parses it once per connection and, after a few runs, keeps its plan. For a statement
   * that joins several tables, planning costs more than running it (an API-key lookup with its acting
   * user ran at a third of the rate of a primary-key lookup when planned every time, and at its rate
   * prepared). `name` must be unique to `text` across the process. Like `reads`, it takes no locks, and outside a
   * transaction it runs on the standby connection ReplicaReads chose, if any.
   */
  async prepared<T>(name: string, text: string, values: readonly unknown[]): Promise<T[]> {
    if (!this.lockFree.has(name)) {
      if (name.startsWith(PIPELINED_NAME_PREFIX))
        throw new Error(`Prepared statement names starting with ${PIPELINED_NAME_PREFIX} are the batches'`);
      refuseLocks(text);
      this.lockFree.add(name);
    }
    const open = this.current.getStore();
    await open?.batch?.flush();
    if (open?.begin.pending) return this.openingRead<T>(open, text, values);
    const standby = open ? undefined : pinnedReads();
    const client = open
      ? ((await open.runner.connect()) as PreparedClient)
      : standby
        ? ((await standby.runner.connect()) as PreparedClient)
        : (this.dataSource.driver as unknown as { master: PreparedClient }).master;
    return (await client.query({ name, text, values })).rows as T[];
  }

  /**
   * A transaction's first statement when it is a prepared read: its `START TRANSACTION` and the locks held back with it
   * (`lock()`'s `withNext`) leave with the read in one round trip (pipelined-statements.ts, the read named by its text).
   */
  private async openingRead<T>(open: Open, text: string, values: readonly unknown[]): Promise<T[]> {
    const client = (await open.runner.connect()) as SubmittableClient;
    const opening = open.begin.take();
    const pipeline = new PipelinedStatements([...opening, { text, values }], { readLast: true });
    try {
      await runPipelined(client, pipeline);
    } catch (error) {
      // Nothing reached the server (a value pg cannot send, a connection already lost): the transaction has not begun.
      if (!pipeline.written) open.begin.restore(opening);
      throw error;
    }
    return pipeline.rows as T[];
  }
}
