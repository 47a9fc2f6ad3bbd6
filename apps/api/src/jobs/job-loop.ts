import type { Logger } from '@nestjs/common';
import { inRootSpan } from '../tracing/spans.js';
import { NotificationListener } from './notification-listener.js';
import { Wakeup } from './wakeup.js';

/** What one round of a job did: run again at once, or sleep this many milliseconds (capped by the poll interval). */
export type TickResult = 'again' | number | undefined;

export interface JobLoopOptions {
  /** In logs, and as the LISTEN connection's application_name in pg_stat_activity. */
  name: string;
  logger: Logger;
  /** Longest sleep between rounds: the backstop for missed notifications and due retries. */
  pollIntervalMs: number;
  /** A NOTIFY channel that cuts the sleep short, on a connection of its own to this database. */
  listen?: { databaseUrl: string; channel: string };
  /** One round: claim (SKIP LOCKED, leased) and work, or clean up. Errors are logged and the round retried after the poll interval. */
  tick: () => Promise<TickResult>;
}

/**
 * The one way background work runs in this service (mail, webhook fan-out and delivery, idempotency
 * cleanup, retention): a loop that runs a round, then sleeps until woken by a notification, by `wake()`,
 * or by the poll interval. Rows are claimed with `FOR UPDATE SKIP LOCKED` and leases by the job's own
 * repository, so any number of instances share the work and a killed one loses nothing (its leases run
 * out). `stop()` lets the round in progress finish.
 */
export class JobLoop {
  private readonly wakeup = new Wakeup();
  private listener: NotificationListener | undefined;
  private running: Promise<void> | undefined;
  private stopping = false;

  constructor(private readonly options: JobLoopOptions) {}

  async start(): Promise<void> {
    if (this.running) return;
    const { listen, name, logger } = this.options;
    if (listen) {
      this.listener = new NotificationListener(listen.databaseUrl, listen.channel, () => this.wake(), logger, name);
      await this.listener.start();
    }
    this.running = this.run();
  }

  wake(): void {
    this.wakeup.wake();
  }

  get started(): boolean {
    return this.running !== undefined;
  }

  /** The round in progress finishes; then the loop and its listener end. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wake();
    await this.running;
    await this.listener?.stop();
  }

  private async run(): Promise<void> {
    const { pollIntervalMs, logger, name } = this.options;
    while (!this.stopping) {
      let pause: number;
      try {
        // Each round is a trace of its own (contract § 19), its statements and the work it starts within it.
        const result = await inRootSpan(`job ${name}`, { attributes: { 'job.name': name } }, () => this.options.tick());
        if (result === 'again') continue;
        pause = Math.min(result ?? pollIntervalMs, pollIntervalMs);
      } catch (error) {
        // The database is away, most likely; claims (if any) expire with their leases.
        logger.warn({ msg: `${name}: round failed; retrying after the poll interval`, error: errorCode(error) });
        pause = pollIntervalMs;
      }
      await this.wakeup.sleep(pause);
    }
  }
}

function errorCode(error: unknown): string {
  if (typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string') return error.code;
  return error instanceof Error ? error.name : 'unknown';
}
