import type { DataSourceOptions } from 'typeorm';
import { MIGRATIONS } from './migrations/index.js';
import { SnakeNamingStrategy } from './naming-strategy.js';

export const MIGRATIONS_TABLE = 'migrations';

/** Idle time before the first TCP keepalive probe on the database's sockets (pool and LISTEN connections). */
export const KEEPALIVE_IDLE_MS = 10_000;

/** How long the application's pool waits for the database before the request fails (503). */
export interface DatabaseTimeouts {
  /** PostgreSQL cancels a statement that runs longer (`statement_timeout`). */
  statementTimeoutMs: number;
  /** Waiting for a pooled connection or for a new one. */
  connectTimeoutMs: number;
  /** Connections the pool may hold at once (default 20). */
  poolSize?: number;
}

/**
 * Pool settings for the API and the workers: bounded waits everywhere, so a database that is gone or
 * stuck makes requests fail fast instead of hanging. The client-side query timeout is a backstop for a
 * server that stops answering without closing the socket (it fires a second after the server's own).
 */
export function poolOptions(timeouts: DatabaseTimeouts): Record<string, unknown> {
  return {
    max: timeouts.poolSize ?? 20,
    connectionTimeoutMillis: timeouts.connectTimeoutMs,
    statement_timeout: timeouts.statementTimeoutMs,
    query_timeout: timeouts.statementTimeoutMs + 1000,
    // A peer that vanished without closing the socket (a database or proxy machine lost in a failover) is found by TCP
    // keepalive probes after 10 s idle, not the kernel's default two hours; busy sockets are bounded by query_timeout.
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_IDLE_MS,
    // A statement that fails is logged without its bound values, whatever the server's default (any role may set
    // this one; log_parameter_max_length, for statements logged by duration, is the role's: migration QuietParameterLog).
    options: '-c log_parameter_max_length_on_error=0',
  };
}

export function dataSourceOptions(url: string, extra: Partial<DataSourceOptions> = {}): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    namingStrategy: new SnakeNamingStrategy(),
    migrations: MIGRATIONS,
    migrationsTableName: MIGRATIONS_TABLE,
    synchronize: false,
    migrationsRun: false,
    extra: { max: 20, connectionTimeoutMillis: 10_000 },
    ...extra,
  } as DataSourceOptions;
}
