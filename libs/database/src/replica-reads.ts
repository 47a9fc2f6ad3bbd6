import { AsyncLocalStorage } from 'node:async_hooks';
import { Logger } from '@nestjs/common';
import { DataSource, type DataSourceOptions, type EntityManager, QueryFailedError, type QueryRunner } from 'typeorm';
import { readsManager } from './locking-reads.js';
import { poolOptions } from './data-source-options.js';

/** What `DATABASE_REPLICA_URLS` and `REPLICA_MAX_LAG_MS` configure (an empty list: the feature is off). */
export interface ReplicaSettings {
  urls: readonly string[];
  /** A standby whose replay is further behind the primary than this is skipped. */
  maxLagMs: number;
  /** Connecting to a standby waits at most this long before the read goes to the primary. */
  connectTimeoutMs: number;
  statementTimeoutMs: number;
  poolSize: number;
}

/** The one standby connection a unit of reads runs on (see ReplicaReads.run), as TransactionHost.reads and prepared() use it. */
export interface PinnedReads {
  readonly reads: EntityManager;
  readonly runner: QueryRunner;
}

const pinned = new AsyncLocalStorage<PinnedReads>();

/** The standby connection of the reads running now, if ReplicaReads routed them to one. */
export function pinnedReads(): PinnedReads | undefined {
  return pinned.getStore();
}

/** Where a unit of reads ran: counted per process for GET /metrics. */
export type ReadTarget = 'replica' | 'primary';

/** How long a standby that failed to answer is left alone before it is tried again. */
export const STANDBY_DOWN_MS = 5000;

/**
 * The organization's last write position: the greatest LSN recorded after a write request for it, or for a write
 * whose organization was not known at the door (`*`: attendee tokens, sign-ins), and the primary's flushed position.
 */
const POSITIONS = `SELECT (SELECT max(lsn) FROM organization_write_positions WHERE organization_id IN ($1, '*'))::text AS written,
  pg_current_wal_flush_lsn()::text AS flushed`;

/** Recorded after a write request's transactions committed: the primary's insert position is past their commits. */
const RECORD = `INSERT INTO organization_write_positions (organization_id, lsn) VALUES ($1, pg_current_wal_insert_lsn())
  ON CONFLICT (organization_id) DO UPDATE SET lsn = GREATEST(organization_write_positions.lsn, EXCLUDED.lsn)`;

/**
 * What the standby has replayed and how far behind it is: 0 while it streams from the primary and has replayed all it
 * received (what the primary flushed since is in flight: a quiet primary writes WAL without commits, and the age of
 * the last replayed commit would then count seconds of nothing as lag), else the age of its last replayed commit (a
 * standby cut off, or replaying a backlog). A node not in recovery (a URL that reaches a primary: HAProxy before its
 * first checks, a promoted node) answers its own flushed position, lag 0.
 */
const STANDBY_STATE = `SELECT pg_is_in_recovery() AS recovery,
  (CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn() ELSE pg_current_wal_flush_lsn() END)::text AS replayed,
  (CASE WHEN pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn()
             AND (SELECT status FROM pg_stat_wal_receiver) = 'streaming' THEN 0
        ELSE extract(epoch FROM clock_timestamp() - pg_last_xact_replay_timestamp()) * 1000 END)::float8 AS behind_ms`;

/** `16/B374D848` as a number, for comparing LSNs; null stays null. */
export function lsnValue(lsn: string | null | undefined): bigint | null {
  if (!lsn) return null;
  const [high, low] = lsn.split('/');
  return (BigInt(`0x${high}`) << 32n) | BigInt(`0x${low}`);
}

const NO_ANSWER = 'The standby did not answer in time';

/** `promise`, or a failure that marks the standby down after `ms`. */
function answerWithin<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(NO_ANSWER)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** Node's codes for a peer that cannot be reached or went away. */
const NETWORK_ERRORS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** A failure of the standby itself (gone, cut, refusing, a conflict with its recovery): the reads go to the primary. */
export function standbyFailure(error: unknown): 'down' | 'conflict' | null {
  const cause = (error instanceof QueryFailedError ? (error.driverError as unknown) : error) as {
    code?: unknown;
    message?: unknown;
  } | null;
  const code = typeof cause?.code === 'string' ? cause.code : '';
  const message = typeof cause?.message === 'string' ? cause.message : '';
  // Recovery conflicts (40001), a read-only refusal (25006) and the like say nothing about the standby's health.
  if (code === '40001' || code === '40P01' || code === '25006') return 'conflict';
  if (/^(08|57P|53)/.test(code) || NETWORK_ERRORS.has(code)) return 'down';
  if (message === NO_ANSWER) return 'down';
  if (/Connection terminated|not queryable|timeout exceeded when trying to connect|Query read timeout|ECONNREFUSED/.test(message))
    return 'down';
  return null;
}

class Standby {
  dataSource: DataSource | undefined;
  starting: Promise<DataSource> | undefined;
  downUntil = 0;

  constructor(
    readonly url: string,
    private readonly options: DataSourceOptions,
  ) {}

  /** The standby's pool, made at its first use (a standby down at boot does not stop the service). */
  async pool(): Promise<DataSource> {
    if (this.dataSource) return this.dataSource;
    this.starting ??= new DataSource({ ...this.options, url: this.url } as DataSourceOptions).initialize().then(
      (dataSource) => {
        const pool = (
          dataSource.driver as unknown as {
            master?: { on(event: string, listener: (client: { on(e: string, l: () => void): void }) => void): void };
          }
        ).master;
        // As TransactionHost's pool: a connection cut while idle must not crash the process.
        pool?.on('connect', (client) => client.on('error', () => undefined));
        this.dataSource = dataSource;
        return dataSource;
      },
      (error: unknown) => {
        this.starting = undefined;
        throw error;
      },
    );
    return this.starting;
  }
}

/** Reads that may run on one standby connection (ReplicaReads.session), unit by unit. */
export interface ReadSession {
  run<T>(work: () => Promise<T>): Promise<T>;
  release(): Promise<void>;
}

/** Every unit on the primary, as without replicas: nothing counted, nothing held. */
const PRIMARY_SESSION: ReadSession = { run: (work) => work(), release: async () => undefined };

class StandbySession implements ReadSession {
  constructor(
    private held: { standby: Standby; pinned: PinnedReads } | undefined,
    private readonly counts: Record<ReadTarget, number>,
    private readonly now: () => number,
  ) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    const held = this.held;
    if (!held) {
      this.counts.primary++;
      return work();
    }
    try {
      const result = await pinned.run(held.pinned, work);
      this.counts.replica++;
      return result;
    } catch (error) {
      const failure = standbyFailure(error);
      if (!failure) throw error;
      if (failure === 'down') held.standby.downUntil = this.now() + STANDBY_DOWN_MS;
      await this.release();
      this.counts.primary++;
      return work();
    }
  }

  async release(): Promise<void> {
    const held = this.held;
    this.held = undefined;
    await held?.pinned.runner.release().catch(() => undefined);
  }
}

/**
 * Reads from standbys (docs/operating/configuration.md `DATABASE_REPLICA_URLS`, docs/reference/api-notes.md "Reads from
 * standbys"). A service wraps a read-only use case in `run(organizationId, work)`: its reads (TransactionHost.reads and
 * prepared) run on one standby connection when that standby is safe for the organization, else on the primary as
 * always. Safe means: its replay has passed the organization's last recorded write position (read from the primary
 * in parallel with the standby's own state, one small statement each) and it is at most REPLICA_MAX_LAG_MS behind.
 * Writes and decisions never come here (a transaction always runs on the primary, and reads inside one join it).
 * With no URL configured, `run` is `work()`: no statement, no connection.
 */
export class ReplicaReads {
  readonly counts: Record<ReadTarget, number> = { replica: 0, primary: 0 };
  /** Write positions that could not be recorded (recordWrite), for GET /metrics. */
  writePositionsLost = 0;
  private lastRecordError: unknown;
  private readonly logger = new Logger('ReplicaReads');
  private readonly standbys: Standby[];
  private next = 0;

  constructor(
    private readonly primary: {
      /** Runs a small read on the primary's pool (TransactionHost.prepared). */
      prepared<T>(name: string, text: string, values: readonly unknown[]): Promise<T[]>;
      /** A write outside any transaction, on the primary (TransactionHost.outside). */
      outside(reason: string): EntityManager;
      readonly inTransaction: boolean;
    },
    private readonly settings: ReplicaSettings,
    /** The primary's data source options (entities, naming): each standby's pool is made with the same. */
    options: DataSourceOptions,
    private readonly now: () => number = Date.now,
  ) {
    const standbyOptions = {
      ...options,
      extra: poolOptions({
        statementTimeoutMs: settings.statementTimeoutMs,
        connectTimeoutMs: settings.connectTimeoutMs,
        poolSize: settings.poolSize,
      }),
      migrationsRun: false,
      synchronize: false,
      // A standby is read-only: TypeORM must not try CREATE EXTENSION on it when it connects.
      installExtensions: false,
    } as DataSourceOptions;
    this.standbys = settings.urls.map((url) => new Standby(url, standbyOptions));
  }

  get enabled(): boolean {
    return this.standbys.length > 0;
  }

  /**
   * Runs read-only `work` for the organization on a standby that has every write recorded for it, else on the primary.
   * A standby that fails meanwhile (gone, cut, a recovery conflict) is not the client's problem: `work` runs again on
   * the primary, and a standby that is down is left alone for STANDBY_DOWN_MS.
   */
  async run<T>(organizationId: string, work: () => Promise<T>): Promise<T> {
    if (!this.enabled || pinned.getStore() || this.primary.inTransaction) return work();
    const session = await this.session(organizationId);
    try {
      return await session.run(work);
    } finally {
      await session.release();
    }
  }

  /**
   * For a read made of several units run at different times (the audit log export's batches, read as the client takes
   * them): one standby connection chosen once, held until `release()`, so every unit reads the same node at a position
   * that only moves forward. When the standby fails, this and every later unit run on the primary, which has all the
   * standby had. Without replica URLs every unit runs on the pool as always.
   */
  async session(organizationId: string): Promise<ReadSession> {
    if (!this.enabled || pinned.getStore() || this.primary.inTransaction) return PRIMARY_SESSION;
    return new StandbySession(await this.open(organizationId), this.counts, this.now);
  }

  /**
   * After a write request (committed or not): the organization's write position, on the primary, before the response
   * leaves, so a read that follows the response on any instance knows it. `null`: the organization was not known at
   * the door; the position is recorded under `*`, which every organization's reads honour. Tried three times (at once,
   * after 50 and 250 ms). A failure after that is not the request's (its write committed): it is logged and counted
   * (`database_write_positions_lost_total`), and until the organization's next recorded write a standby up to
   * REPLICA_MAX_LAG_MS behind may answer its reads without that write (deployment.md § Reads from standbys).
   */
  async recordWrite(organizationId: string | null): Promise<void> {
    if (!this.enabled) return;
    for (const delayMs of [0, 50, 250]) {
      if (delayMs) await new Promise((resolve) => setTimeout(resolve, delayMs));
      try {
        await this.primary
          .outside('the write position is recorded after the request’s transactions committed, past their commits')
          .query(RECORD, [organizationId ?? '*']);
        return;
      } catch (error) {
        this.lastRecordError = error;
      }
    }
    this.writePositionsLost++;
    this.logger.error({
      msg: 'write position not recorded: standbys may answer this organization’s reads without its last write',
      organizationId: organizationId ?? '*',
      err: this.lastRecordError,
    });
  }

  /** Closes the standbys' pools. */
  async close(): Promise<void> {
    await Promise.allSettled(this.standbys.map((standby) => standby.dataSource?.destroy()));
  }

  /** A standby connection safe for the organization's reads, or undefined: the primary. */
  private async open(organizationId: string): Promise<{ standby: Standby; pinned: PinnedReads } | undefined> {
    const now = this.now();
    const start = this.next++ % this.standbys.length;
    const candidates = [...this.standbys.slice(start), ...this.standbys.slice(0, start)].filter((s) => s.downUntil <= now);
    if (candidates.length === 0) return undefined;
    // The organization's position, read once from the primary while the first standby is asked for its state.
    const positions = this.primary
      .prepared<{ written: string | null; flushed: string }>('replica-reads-positions', POSITIONS, [organizationId])
      .then(([row]) => ({ written: lsnValue(row.written), flushed: lsnValue(row.flushed)! }))
      .catch(() => undefined);
    for (const standby of candidates) {
      let runner: QueryRunner | undefined;
      let probe: Promise<unknown> | undefined;
      try {
        const dataSource = await standby.pool();
        runner = dataSource.createQueryRunner();
        const state = runner.query(STANDBY_STATE) as Promise<{ recovery: boolean; replayed: string | null; behind_ms: number | null }[]>;
        probe = state;
        // A standby that takes a connection but does not answer (cut off without a reset) costs a read this long, once.
        const [[row], position] = await Promise.all([answerWithin(state, 2 * this.settings.connectTimeoutMs), positions]);
        if (!position) {
          await runner.release();
          return undefined;
        }
        const replayed = lsnValue(row.replayed);
        const caughtUp = replayed !== null && replayed >= position.flushed;
        const lagMs = !row.recovery || caughtUp ? 0 : (row.behind_ms ?? Number.POSITIVE_INFINITY);
        const fresh = replayed !== null && (position.written === null || replayed >= position.written);
        if (fresh && lagMs <= this.settings.maxLagMs) {
          return { standby, pinned: { runner, reads: readsManager(dataSource, runner) } };
        }
        await runner.release();
      } catch (error) {
        // The connection goes back to the pool once its probe has settled, never with the probe still running on it.
        const release = (): Promise<void> => runner?.release().catch(() => undefined) ?? Promise.resolve();
        if (probe) void probe.then(release, release);
        else await release();
        if (standbyFailure(error) === 'down' || !runner) standby.downUntil = this.now() + STANDBY_DOWN_MS;
      }
    }
    return undefined;
  }
}
