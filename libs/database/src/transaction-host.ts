import { AsyncLocalStorage } from 'node:async_hooks';
import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';

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
}
