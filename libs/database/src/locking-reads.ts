import { type DataSource, EntityManager, type QueryRunner } from 'typeorm';
import { codeSpans } from './sql-text.js';

/** Row locks (`FOR UPDATE`, `FOR NO KEY UPDATE`, `FOR SHARE`, `FOR KEY SHARE`) and advisory locks, in a statement's code. */
const LOCK = /\bFOR\s+(?:NO\s+KEY\s+UPDATE|UPDATE|KEY\s+SHARE|SHARE)\b|\bpg_(?:try_)?advisory_(?:xact_)?lock(?:_shared)?\s*\(/i;

/** Whether the statement takes a row lock or an advisory lock (the words inside a string or a comment do not count). */
export function takesLocks(text: string): boolean {
  if (!LOCK.test(text)) return false;
  for (const [start, end] of codeSpans(text)) if (LOCK.test(text.slice(start, end))) return true;
  return false;
}

export class LockingReadError extends Error {}

export function refuseLocks(text: string): void {
  if (takesLocks(text)) throw new LockingReadError(`Locks are taken through transactional, not reads: ${text.trim().slice(0, 120)}`);
}

/**
 * `runner`, its statements checked as they are sent. Its methods run on the runner itself, so TypeORM's bookkeeping
 * of connected runners sees one object; the manager TypeORM pins on a runner stays the runner's own.
 */
function lockFree(runner: QueryRunner): QueryRunner {
  const query = ((text: string, ...rest: unknown[]) => {
    refuseLocks(text);
    return (runner.query as (...all: unknown[]) => Promise<unknown>).call(runner, text, ...rest);
  }) as QueryRunner['query'];
  return new Proxy(runner, {
    get: (target, property) => {
      if (property === 'query') return query;
      const value: unknown = Reflect.get(target, property);
      return typeof value === 'function' ? (value as (...all: unknown[]) => unknown).bind(target) : value;
    },
    set: (target, property, value) => property === 'manager' || Reflect.set(target, property, value),
  });
}

/**
 * The manager of `TransactionHost.reads`: on the open transaction's connection, or the pool's. Every statement it
 * sends, written by hand or by a finder or query builder, is checked when it runs, and one that takes locks is
 * refused: through `reads`, called inside a transaction it would lock, and called from anywhere else it would lock
 * nothing at all (autocommit releases the lock with the statement). Locks go through `transactional`, which throws
 * outside a transaction.
 */
export function readsManager(dataSource: DataSource, runner?: QueryRunner): EntityManager {
  if (runner) return new EntityManager(dataSource, lockFree(runner));
  const pool = new Proxy(dataSource, {
    get: (target, property, receiver) =>
      property === 'createQueryRunner'
        ? (...args: Parameters<DataSource['createQueryRunner']>) => lockFree(target.createQueryRunner(...args))
        : Reflect.get(target, property, receiver),
  });
  return new EntityManager(pool);
}
