import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig, Clock, daysBefore } from '@app/common';
import { JobLoop, nextRetrySeconds, PeriodicJobs, RETENTION_INTERVAL_MS, type TickResult } from '../../jobs/index.js';
import type { MailMessage } from './entities/mail-message.entity.js';
import { describeSendError, smtpUrlSecrets } from './mail-errors.js';
import { MAIL_OUTBOX_CHANNEL, MailRepository } from './mail.repository.js';
import { MailTransport, SEND_TIMEOUT_MS } from './mail.transport.js';

/** Catches retries and notifications sent while the listener was down. */
const POLL_INTERVAL_MS = 5_000;
/** Far beyond one send's own timeout, so a live worker never loses its claim mid-send. */
const LEASE_SECONDS = Math.ceil((SEND_TIMEOUT_MS * 5) / 1000);

/**
 * Sends what `MailOutbox` recorded, one message at a time: claim (short transaction), send (no
 * transaction open), record the outcome. Delivery is at least once: a crash between sending and
 * marking sent means the message goes again when its lease ends.
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

  /** One message: claimed (short transaction, leased), sent, its outcome recorded; or the time until the next is due. */
  private async sendNext(): Promise<TickResult> {
    const mail = await this.repository.claimNext(LEASE_SECONDS);
    if (!mail) return (await this.repository.msUntilNextDue()) ?? undefined;
    await this.deliver(mail);
    return 'again';
  }

  private async deliver(mail: MailMessage): Promise<void> {
    const context = { mailId: mail.id, recipients: mail.recipients.length, attempt: mail.attempts };
    try {
      await this.transport.send(mail);
    } catch (error) {
      const failure = describeSendError(error, this.secrets);
      const delaySeconds = nextRetrySeconds(this.config.mailRetrySchedule, mail.attempts);
      if (delaySeconds === null) {
        await this.repository.markFailed(mail.id, failure.reason);
        this.logger.error({ msg: 'Mail delivery failed for good', ...context, error: failure.code });
      } else {
        await this.repository.scheduleRetry(mail.id, delaySeconds, failure.reason);
        this.logger.warn({ msg: 'Mail delivery failed; will retry', ...context, error: failure.code, retryInSeconds: delaySeconds });
      }
      return;
    }
    await this.repository.markSent(mail.id);
    this.logger.log({ msg: 'Mail sent', ...context });
  }
}
