import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '@app/common';
import { JobLoop } from './job-loop.js';

/** How often retention sweeps run; what they keep is RETENTION_DAYS. */
export const RETENTION_INTERVAL_MS = 60 * 60 * 1000;

interface PeriodicJob {
  name: string;
  /** Returns how many rows it removed or handled, for the log and for tests. */
  work: () => Promise<number>;
  loop: JobLoop;
}

/**
 * Housekeeping on a timer (retention, expired idempotency keys), through the same JobLoop as the queue
 * workers. The module that owns a table registers the job that cleans it; the jobs run where workers run
 * (apps/worker, or API instances with RUN_WORKERS not false). Every instance may run them: each round is
 * one idempotent DELETE, so running twice at once does no harm.
 */
@Injectable()
export class PeriodicJobs implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('PeriodicJobs');
  private readonly jobs: PeriodicJob[] = [];

  constructor(private readonly config: AppConfig) {}

  register(name: string, intervalMs: number, work: () => Promise<number>): void {
    const loop = new JobLoop({
      name,
      logger: this.logger,
      pollIntervalMs: intervalMs,
      tick: async () => {
        const count = await work();
        if (count > 0) this.logger.log({ msg: `${name}: removed ${count} rows`, job: name, count });
        return undefined;
      },
    });
    this.jobs.push({ name, work, loop });
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.runWorkers) return;
    for (const job of this.jobs) await job.loop.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all(this.jobs.map((job) => job.loop.stop()));
  }

  /** Every job's work once, now, in registration order (operators' scripts and tests). */
  async runOnce(): Promise<Record<string, number>> {
    const counts: Record<string, number> = {};
    for (const job of this.jobs) counts[job.name] = await job.work();
    return counts;
  }
}
