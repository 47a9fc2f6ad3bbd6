import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig, jobTenantScope } from '@app/common';
import { JobLoop, type TickResult } from '../../jobs/index.js';
import { CalendarSync } from './calendar-sync.service.js';
import { CalendarQueueRepository } from './calendar-queue.repository.js';
import { CALENDAR_SYNC_CHANNEL } from './calendars.repository.js';

/** Catches connections that became due while nobody listened; due times are minutes apart anyway. */
const POLL_INTERVAL_MS = 5_000;
/** Each claimed connection is synced within the timeout of its requests; the lease is far beyond it. */
const CLAIM = 4;

/**
 * Syncs connections that are due (every CALENDAR_SYNC_INTERVAL seconds, or now after POST …/sync), a
 * few at a time, each by one worker across instances (leased claims, SKIP LOCKED). A sync's outcome
 * is recorded whatever it is, so a source that fails is retried at the next interval.
 */
@Injectable()
export class CalendarSyncWorker implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(CalendarSyncWorker.name);
  private readonly loop: JobLoop;

  constructor(
    private readonly config: AppConfig,
    private readonly queue: CalendarQueueRepository,
    private readonly sync: CalendarSync,
  ) {
    this.loop = new JobLoop({
      name: 'calendar-sync',
      logger: this.logger,
      pollIntervalMs: POLL_INTERVAL_MS,
      listen: config.databaseUrl ? { databaseUrl: config.databaseUrl, channel: CALENDAR_SYNC_CHANNEL } : undefined,
      tick: () => this.syncDue(),
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.runWorkers && this.config.databaseUrl) await this.loop.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.loop.stop();
  }

  private async syncDue(): Promise<TickResult> {
    const leaseSeconds = Math.ceil((this.config.calendarTimeoutMs * 5) / 1000) + 60;
    const due = await this.queue.claimDue(CLAIM, leaseSeconds);
    if (due.length === 0) return (await this.queue.msUntilNextDue()) ?? undefined;
    await Promise.all(
      due.map(async (connection) => {
        try {
          // Calendars are organization data shared by both modes.
          await this.sync.sync(jobTenantScope(connection.organizationId, true), connection);
        } finally {
          await this.queue.release(connection.claim).catch(() => undefined);
        }
      }),
    );
    return 'again';
  }
}
