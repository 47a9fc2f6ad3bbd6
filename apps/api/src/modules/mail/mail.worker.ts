import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig, Clock, daysBefore } from '@app/common';
import { type Claim, JobLoop, nextRetrySeconds, PeriodicJobs, RETENTION_INTERVAL_MS, type TickResult } from '../../jobs/index.js';
import { inSpan, SpanKind } from '../../tracing/spans.js';
import { describeSendError, smtpUrlSecrets } from './mail-errors.js';
import { type ClaimedMail, MAIL_OUTBOX_CHANNEL, MailRepository } from './mail.repository.js';
import { MAX_CONNECTIONS, MailTransport, SEND_TIMEOUT_MS } from './mail.transport.js';

/** Catches retries and notifications sent while the listener was down. */
const POLL_INTERVAL_MS = 5_000;
/** Messages per round: eight per pooled connection, so the connections stay busy while a round is claimed and recorded. */
const MAIL_BATCH = MAX_CONNECTIONS * 8;
/**
 * Far beyond one send's own timeout, so a live worker never loses its claim mid-send: each message of a round has its
 * own SEND_TIMEOUT_MS from the moment the round hands it to the transport, queued behind the others or not.
 */
const LEASE_SECONDS = Math.ceil((SEND_TIMEOUT_MS * 5) / 1000);
/** How long a round keeps trying to record what it sent while the database fails over; far inside the lease. */
const MARK_RETRY_MS = 30_000;

/**
 * Sends what `MailOutbox` recorded, a batch at a time: claim (short transaction), send side by side (no
 * transaction open), record the outcomes. Delivery is at least once: a crash between sending and
 * marking sent means the message goes again when its lease ends (with the same Message-ID).
 */
@Injectable()
export class MailWorker implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(MailWorker.name);
  private readonly secrets: string[];
  private readonly loop: JobLoop;

  constructor(
    private readonly config: AppConfig,
    private readonly repository: MailRepository,
    private readonly transport: MailTransport,
    clock: Clock,
    jobs: PeriodicJobs,
  ) {
    this.secrets = smtpUrlSecrets(config.smtpUrl);
    jobs.register('mail-retention', RETENTION_INTERVAL_MS, () =>
      repository.deleteSentBefore(daysBefore(clock.now(), config.retentionDays)),
    );
    this.loop = new JobLoop({
      name: 'mail-worker',
      logger: this.logger,
      pollIntervalMs: POLL_INTERVAL_MS,
      listen: config.databaseUrl ? { databaseUrl: config.databaseUrl, channel: MAIL_OUTBOX_CHANNEL } : undefined,
      tick: () => this.sendNext(),
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.runWorkers && this.config.databaseUrl) await this.loop.start();
  }

  /** Runs before the data source closes (global modules shut down last), so the message in flight is recorded. */
  async onApplicationShutdown(): Promise<void> {
    await this.loop.stop();
    this.transport.close();
  }

  /**
   * A round: up to MAIL_BATCH due messages claimed (short transaction, leased), sent side by side over the transport's
   * pooled connections, their outcomes recorded (the successes in one statement); or the time until the next is due.
   */
  private async sendNext(): Promise<TickResult> {
    const mails = await this.repository.claimDue(MAIL_BATCH, LEASE_SECONDS);
    if (mails.length === 0) return (await this.repository.msUntilNextDue()) ?? undefined;
    const sent = await Promise.all(mails.map((mail) => this.deliver(mail)));
    await this.recordSent(mails.filter((_, i) => sent[i]).map((mail) => mail.claim));
    for (const [i, mail] of mails.entries()) {
      if (sent[i]) this.logger.log({ msg: 'Mail sent', mailId: mail.id, recipients: mail.recipients.length, attempt: mail.attempts });
    }
    return 'again';
  }

  /**
   * Marks the round's successes sent, retried while the database is away (a failover takes seconds): these messages went
   * out, and a lost mark would send them again when their lease ends. Gives up well inside the lease (the messages then
   * go again: at least once).
   */
  private recordSent(claims: Claim[]): Promise<void> {
    return retryForAWhile(
      () => this.repository.markSent(claims),
      MARK_RETRY_MS,
      1000,
      (error) => this.logger.warn({ msg: 'Marking sent mail failed; retrying', mails: claims.length, error: errorName(error) }),
    );
  }

  /** Sends one message; a failure is recorded here (retry or failed for good), a success by the caller. */
  private async deliver(mail: ClaimedMail): Promise<boolean> {
    const context = { mailId: mail.id, recipients: mail.recipients.length, attempt: mail.attempts };
    try {
      // A span per message sent (contract § 19), inside the round that claimed it; a failure's span says its error code.
      const attributes = { 'mail.id': mail.id, 'mail.recipients': mail.recipients.length, 'mail.attempt': mail.attempts };
      await inSpan('mail send', { kind: SpanKind.CLIENT, attributes }, () => this.transport.send(mail));
      return true;
    } catch (error) {
      const failure = describeSendError(error, this.secrets);
      const delaySeconds = nextRetrySeconds(this.config.mailRetrySchedule, mail.attempts);
      try {
        if (delaySeconds === null) {
          await this.repository.markFailed(mail.claim, failure.reason);
          this.logger.error({ msg: 'Mail delivery failed for good', ...context, error: failure.code });
        } else {
          await this.repository.scheduleRetry(mail.claim, delaySeconds, failure.reason);
          this.logger.warn({ msg: 'Mail delivery failed; will retry', ...context, error: failure.code, retryInSeconds: delaySeconds });
        }
      } catch (recordError) {
        // The database is away: this message went nowhere and goes again when its lease ends. Not thrown, so the round
        // still records the messages that did go out (else they would go twice).
        this.logger.warn({ msg: 'Recording a failed mail failed; its lease will retry it', ...context, error: errorName(recordError) });
      }
      return false;
    }
  }
}

function errorName(error: unknown): string {
  if (typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string') return error.code;
  return error instanceof Error ? error.name : 'unknown';
}

/** How retryForAWhile reads the time and pauses; tests move a counter instead of waiting. */
export interface RetryTimer {
  now(): number;
  pause(ms: number): Promise<void>;
}

const realTimer: RetryTimer = {
  now: () => Date.now(),
  pause: (ms) => new Promise((done) => setTimeout(done, ms)),
};

/**
 * Runs `write` until it succeeds, pausing `pauseMs` after each failure, for up to `forMs` (then its error). For outcomes
 * that are safe to repeat: a mark fenced by its claim's lease changes nothing the second time.
 */
export async function retryForAWhile(
  write: () => Promise<unknown>,
  forMs: number,
  pauseMs: number,
  onFailure: (error: unknown) => void,
  timer: RetryTimer = realTimer,
): Promise<void> {
  const deadline = timer.now() + forMs;
  for (;;) {
    try {
      await write();
      return;
    } catch (error) {
      if (timer.now() + pauseMs > deadline) throw error;
      onFailure(error);
      await timer.pause(pauseMs);
    }
  }
}
