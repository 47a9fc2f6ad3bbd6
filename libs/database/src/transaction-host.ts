import { AsyncLocalStorage } from 'node:async_hooks';
import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

/** What pg's client and pool take: a named statement is parsed and planned once per connection. */
interface PreparedClient {
  query(config: { name: string; text: string; values: readonly unknown[] }): Promise<{ rows: unknown[] }>;
}

/**
 * Transactions travel in context, not in parameters: a service method opens one with `transaction()`,
 * and every repository call inside it, in any module, finds it through `manager` (AsyncLocalStorage
 * follows the async calls). A nested `transaction()` joins the open one. Writes that are only correct
 * inside a transaction (row locks, outbox rows) read `transactional`, which throws outside one, so
 * forgetting to open it fails loudly instead of running on autocommit.
 */
@Injectable()
export class TransactionHost {
  private readonly current = new AsyncLocalStorage<EntityManager>();

  constructor(private readonly dataSource: DataSource) {}

  /** The open transaction's manager, or the pool's (autocommit) outside one. */
  get manager(): EntityManager {
    return this.current.getStore() ?? this.dataSource.manager;
  }

  /** The open transaction's manager; throws when there is none. */
  get transactional(): EntityManager {
    const manager = this.current.getStore();
    if (!manager) throw new Error('This write must run inside TransactionHost.transaction()');
    return manager;
  }

  get inTransaction(): boolean {
    return this.current.getStore() !== undefined;
  }

  transaction<T>(work: () => Promise<T>): Promise<T> {
    if (this.current.getStore()) return work();
    return this.dataSource.transaction((manager) => this.current.run(manager, work));
  }

  /**
   * A hot statement as a named prepared statement, on the open transaction's connection or the pool's:
   * PostgreSQL parses it once per connection and, after a few runs, keeps its plan. For a statement
   * that joins several tables, planning costs more than running it (an API-key lookup with its acting
   * user ran at a third of the rate of a primary-key lookup when planned every time, and at its rate
   * prepared). `name` must be unique to `text` across the process.
   */
  async prepared<T>(name: string, text: string, values: readonly unknown[]): Promise<T[]> {
    const manager = this.current.getStore();
    const client = manager?.queryRunner
      ? ((await manager.queryRunner.connect()) as PreparedClient)
      : (this.dataSource.driver as unknown as { master: PreparedClient }).master;
    return (await client.query({ name, text, values })).rows as T[];
  }
}
