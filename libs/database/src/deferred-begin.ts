import type { QueryRunner } from 'typeorm';

type Query = (text: string, ...rest: unknown[]) => Promise<unknown>;

export const BEGIN = 'START TRANSACTION';

/**
 * A transaction's `START TRANSACTION`, held back until its first statement: a round trip of its own for nothing
 * otherwise. TypeORM sends it through the runner's `query` when the transaction opens; from then the runner's `query`
 * (an own property, which WriteBatch wraps in turn and restores) sends it just before whatever comes first, and
 * `TransactionHost.lock` sends it in one message with a lock statement (`sendWith`). A transaction that sent nothing
 * commits or rolls back without a word to the server: nothing was begun.
 */
export class DeferredBegin {
  /** `START TRANSACTION` was asked for and is not sent yet. */
  pending = false;
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
        return undefined;
      }
      await this.send();
      return query(text, ...rest);
    }) as QueryRunner['query'];
  }

  /** Sends `START TRANSACTION` if it waits. */
  async send(): Promise<void> {
    if (!this.pending) return;
    this.pending = false;
    await this.query(BEGIN);
  }

  /**
   * For a caller that sends `START TRANSACTION` itself, ahead of its own statements in one message (a pipelined batch):
   * whether it was waiting (it is then no longer).
   */
  take(): boolean {
    const pending = this.pending;
    this.pending = false;
    return pending;
  }

  /** Undoes `take()` when the caller's message never reached the server: `START TRANSACTION` waits again. */
  restore(): void {
    this.pending = true;
  }

  /** Sends `START TRANSACTION` and `text` (no parameters; its result unread) in one message. */
  async sendWith(text: string): Promise<void> {
    if (!this.pending) throw new Error('The transaction has begun');
    this.pending = false;
    await this.query(`${BEGIN};\n${text}`);
  }

  /** The runner's `query` as it was. */
  close(): void {
    if (this.previous) Object.defineProperty(this.runner, 'query', this.previous);
    else delete (this.runner as Partial<QueryRunner>).query;
  }
}
