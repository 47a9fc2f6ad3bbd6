import type { QueryRunner } from 'typeorm';
import { inlineParameters, type Statement } from './inline-parameters.js';

type Query = (text: string, ...rest: unknown[]) => Promise<unknown>;

export const BEGIN = 'START TRANSACTION';

/**
 * A transaction's `START TRANSACTION`, held back until its first statement: a round trip of its own for nothing
 * otherwise. TypeORM sends it through the runner's `query` when the transaction opens; from then the runner's `query`
 * (an own property, which WriteBatch wraps in turn and restores) sends it just before whatever comes first, and
 * `TransactionHost.lock` sends it in one message with a lock statement (`sendWith`), or holds the lock back with it
 * (`hold`) to leave with the next statement, whichever way that one goes. A transaction that sent nothing commits or
 * rolls back without a word to the server: nothing was begun.
 */
export class DeferredBegin {
  /** `START TRANSACTION` was asked for and is not sent yet. */
  pending = false;
  /** Locks held back with it (`hold`), sent after it. */
  private locks: Statement[] = [];
  private readonly query: Query;
  private readonly previous: PropertyDescriptor | undefined;

  constructor(private readonly runner: QueryRunner) {
    const query = runner.query.bind(runner) as Query;
    this.query = query;
    this.previous = Object.getOwnPropertyDescriptor(runner, 'query');
    runner.query = (async (text: string, ...rest: unknown[]) => {
      if (text === BEGIN && !this.pending) {
        this.pending = true;
        return undefined;
      }
      if (this.pending && (text === 'COMMIT' || text === 'ROLLBACK')) {
        this.pending = false;
        this.locks = [];
        return undefined;
      }
      await this.send();
      return query(text, ...rest);
    }) as QueryRunner['query'];
  }

  /** Sends `START TRANSACTION`, with the locks held back, if it waits. */
  async send(): Promise<void> {
    if (!this.pending) return;
    await this.sendWith();
  }

  /** Holds a lock statement back to leave after `START TRANSACTION`, with whatever the transaction sends first. */
  hold(lock: Statement): void {
    if (!this.pending) throw new Error('The transaction has begun');
    this.locks.push(lock);
  }

  /**
   * For a caller that sends `START TRANSACTION` itself, ahead of its own statements in one message (a pipelined batch):
   * the statements to put first (`START TRANSACTION` and the locks held back; none when it has begun). It has then begun.
   */
  take(): Statement[] {
    if (!this.pending) return [];
    const opening = [{ text: BEGIN, values: [] }, ...this.locks];
    this.pending = false;
    this.locks = [];
    return opening;
  }

  /** Undoes `take()` when the caller's message never reached the server: `START TRANSACTION` and its locks wait again. */
  restore(opening: readonly Statement[]): void {
    if (opening.length === 0) return;
    this.pending = true;
    this.locks = opening.slice(1);
  }

  /**
   * Sends `START TRANSACTION`, the locks held back (their values written in) and `text` if given (no parameters; its
   * result unread) in one message.
   */
  async sendWith(text?: string): Promise<void> {
    if (!this.pending) throw new Error('The transaction has begun');
    const texts = [BEGIN, ...this.locks.map((lock) => inlineParameters(lock)), ...(text === undefined ? [] : [text])];
    this.pending = false;
    this.locks = [];
    await this.query(texts.join(';\n'));
  }

  /** The runner's `query` as it was. */
  close(): void {
    if (this.previous) Object.defineProperty(this.runner, 'query', this.previous);
    else delete (this.runner as Partial<QueryRunner>).query;
  }
}
