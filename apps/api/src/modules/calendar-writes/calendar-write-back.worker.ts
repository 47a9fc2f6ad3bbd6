import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig, Clock, daysBefore, jobTenantScope } from '@app/common';
import { JobLoop, nextRetrySeconds, PeriodicJobs, RETENTION_INTERVAL_MS, type TickResult } from '../../jobs/index.js';
import { CalDavReader, SourceError } from '../calendar-sources/index.js';
import { CalendarDestinations } from '../calendars/index.js';
import { CALENDAR_WRITES_CHANNEL, CalendarWritesRepository, type ClaimedWrite } from './calendar-writes.repository.js';

const POLL_INTERVAL_MS = 5_000;
const CLAIM = 8;
const RETENTION_BATCH = 1000;

/**
 * Carries out recorded write-backs after their booking committed: PUT `<booking id>.ics` into the host's
 * destination calendar, or DELETE it. A host without a destination has nothing to write. Failures are
 * retried on CALENDAR_RETRY_SCHEDULE and then marked failed; writes of one booking keep their order.
 */
/** What a write whose calendar secrets no configured key opens records, and the log says once for it. */
export const CALENDAR_SECRET_UNREADABLE =
  'Calendar secrets cannot be opened with ENCRYPTION_KEY or ENCRYPTION_KEY_PREVIOUS: the write waits for the key that sealed them';
const SECRET_UNREADABLE_RETRY_SECONDS = 600;

@Injectable()
export class CalendarWriteBackWorker implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(CalendarWriteBackWorker.name);
  private readonly loop: JobLoop;
  private readonly dav: CalDavReader;

  constructor(
    private readonly config: AppConfig,
    private readonly destinations: CalendarDestinations,
    private readonly queue: CalendarWritesRepository,
    private readonly clock: Clock,
    jobs: PeriodicJobs,
  ) {
    // Keeping only what is needed (contract § 18): a finished write's body goes after RETENTION_DAYS, the row stays.
    jobs.register('calendar-write-retention', RETENTION_INTERVAL_MS, () => this.clearFinishedBodies());
    this.dav = new CalDavReader(config.calendarAllowPrivateUrls, config.calendarTimeoutMs);
    this.loop = new JobLoop({
      name: 'calendar-write-back',
      logger: this.logger,
      pollIntervalMs: POLL_INTERVAL_MS,
      listen: config.databaseUrl ? { databaseUrl: config.databaseUrl, channel: CALENDAR_WRITES_CHANNEL } : undefined,
      tick: () => this.writeDue(),
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.runWorkers && this.config.databaseUrl) await this.loop.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.loop.stop();
    this.dav.close();
  }

  /** Finished write-backs recorded more than RETENTION_DAYS ago (on the Clock) lose their body, in batches. */
  async clearFinishedBodies(): Promise<number> {
    const cutoff = daysBefore(this.clock.now(), this.config.retentionDays);
    let total = 0;
    for (;;) {
      const count = await this.queue.clearFinishedBodiesBefore(cutoff, RETENTION_BATCH);
      total += count;
      if (count < RETENTION_BATCH) return total;
    }
  }

  private async writeDue(): Promise<TickResult> {
    const leaseSeconds = Math.ceil((this.config.calendarTimeoutMs * 3) / 1000) + 30;
    const writes = await this.queue.claimWrites(CLAIM, leaseSeconds);
    if (writes.length === 0) return (await this.queue.msUntilNextWrite()) ?? undefined;
    await Promise.all(writes.map((write) => this.carryOut(write)));
    return 'again';
  }

  private async carryOut(write: ClaimedWrite): Promise<void> {
    // A PUT whose body an erasure took: an erased PUT queued after it takes its place, so it has nothing left to do.
    if (write.action === 'put' && write.ics === null) {
      await this.queue.finishWrite(write.claim);
      return;
    }
    // Set while the calendar server is asked: its failures (a refused connection or a timeout too) are the write's own.
    let atCalendarServer = false;
    try {
      const destination = await this.destinations.of(jobTenantScope(write.organizationId, true), write.userId);
      if (destination) {
        const { calendarId } = destination;
        let account;
        try {
          account = destination.account();
        } catch {
          // Not the server's fault: the write waits (pending, the attempt not counted) for the key to come back.
          await this.queue.holdWrite(write.claim, SECRET_UNREADABLE_RETRY_SECONDS, CALENDAR_SECRET_UNREADABLE);
          if (write.lastError !== CALENDAR_SECRET_UNREADABLE) this.logger.warn({ msg: CALENDAR_SECRET_UNREADABLE, writeId: write.id });
          return;
        }
        atCalendarServer = true;
        await this.dav.write(account, calendarId, `${write.bookingId}.ics`, write.action === 'put' ? write.ics : null);
        atCalendarServer = false;
      }
      await this.queue.finishWrite(write.claim);
    } catch (error) {
      // The database, not the write, failed (contract § 19): the attempt is not counted, the write goes again shortly.
      if (!atCalendarServer && (await this.queue.setBack(write.claim, error))) {
        this.logger.warn({ msg: 'Calendar write-back met a database outage; not counted, goes again', writeId: write.id });
        return;
      }
      const reason = error instanceof SourceError ? error.message : error instanceof Error ? error.name : 'error';
      const delay = nextRetrySeconds(this.config.calendarRetrySchedule, write.attempts);
      if (delay === null) {
        await this.queue.failWrite(write.claim, reason);
        this.logger.error({ msg: 'Calendar write-back failed for good', writeId: write.id, error: reason });
      } else {
        await this.queue.retryWrite(write.claim, delay, reason);
        this.logger.warn({ msg: 'Calendar write-back failed; will retry', writeId: write.id, error: reason, retryInSeconds: delay });
      }
    }
  }
}
