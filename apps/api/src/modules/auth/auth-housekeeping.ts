import { Injectable, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppConfig, Clock, daysBefore } from '@app/common';
import { JobsModule, PeriodicJobs, RETENTION_INTERVAL_MS } from '../../jobs/index.js';
import { AuthRepository } from './auth.repository.js';
import { LoginFailure } from './entities/login-failure.entity.js';
import { Session } from './entities/session.entity.js';
import { User } from './entities/user.entity.js';

/** The window in which failed logins count towards a lockout; a failure is deleted once past it. */
export const LOCKOUT_WINDOW_MS = 15 * 60 * 1000;
const LOGIN_FAILURE_SWEEP_INTERVAL_MS = 10 * 60 * 1000;
const SESSION_SWEEP_BATCH = 1000;

/**
 * The auth module's periodic sweeps (contract § 18, keeping only what is needed), in a module of their own so that the
 * worker runs them too: it loads no AuthModule (no HTTP guards, rate limiter or JWT), and API instances started with
 * RUN_WORKERS=false run no jobs.
 */
@Injectable()
export class AuthHousekeeping {
  constructor(
    private readonly repository: AuthRepository,
    private readonly config: AppConfig,
    private readonly clock: Clock,
    jobs: PeriodicJobs,
  ) {
    // A failed login (an email and a client address) goes after its window.
    jobs.register('login-failure-cleanup', LOGIN_FAILURE_SWEEP_INTERVAL_MS, () =>
      this.repository.deleteLoginFailuresBefore(new Date(this.clock.now().getTime() - LOCKOUT_WINDOW_MS)),
    );
    // A session (its user agent) goes RETENTION_DAYS after it ended. An ended session already answers every token 401,
    // and reuse detection concerns live sessions only, so a token of a deleted one is refused just the same.
    jobs.register('session-cleanup', RETENTION_INTERVAL_MS, () => this.deleteEndedSessions());
  }

  /** Sessions revoked or expired more than RETENTION_DAYS ago (on the Clock), in batches; returns how many went. */
  async deleteEndedSessions(): Promise<number> {
    const cutoff = daysBefore(this.clock.now(), this.config.retentionDays);
    let total = 0;
    for (;;) {
      const count = await this.repository.deleteEndedSessions(cutoff, SESSION_SWEEP_BATCH);
      total += count;
      if (count < SESSION_SWEEP_BATCH) return total;
    }
  }
}

/** Imported by AuthModule and loaded by the worker. */
@Module({
  imports: [TypeOrmModule.forFeature([User, Session, LoginFailure]), JobsModule],
  providers: [AuthRepository, AuthHousekeeping],
  exports: [AuthRepository],
})
export class AuthHousekeepingModule {}
