import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '@app/common';
import type { MailMessage } from './entities/mail-message.entity.js';
import { describeSendError, smtpUrlSecrets } from './mail-errors.js';
import { MAIL_OUTBOX_CHANNEL, MailRepository } from './mail.repository.js';
import { MailTransport, SEND_TIMEOUT_MS } from './mail.transport.js';
import { OutboxListener } from './outbox-listener.js';

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
  private listener: OutboxListener | undefined;
  private running: Promise<void> | undefined;
  private stopping = false;
  private woken = false;
  private wakeSleeper: (() => void) | undefined;

  constructor(
    private readonly config: AppConfig,
    private readonly repository: MailRepository,
    private readonly transport: MailTransport,
  ) {
    this.secrets = smtpUrlSecrets(config.smtpUrl);
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.runWorkers || !this.config.databaseUrl) return;
    this.listener = new OutboxListener(this.config.databaseUrl, MAIL_OUTBOX_CHANNEL, () => this.wake(), this.logger);
    await this.listener.start();
    this.running = this.run();
  }

  /** Runs before the data source closes (global modules shut down last), so the message in flight is recorded. */
  async onApplicationShutdown(): Promise<void> {
    this.stopping = true;
    this.wake();
    await this.running;
    await this.listener?.stop();
    this.transport.close();
  }

  private async run(): Promise<void> {
    while (!this.stopping) {
      try {
        const mail = await this.repository.claimNext(LEASE_SECONDS);
        if (mail) {
          await this.deliver(mail);
          continue;
        }
        const dueInMs = await this.repository.msUntilNextDue();
        await this.sleep(Math.min(dueInMs ?? POLL_INTERVAL_MS, POLL_INTERVAL_MS));
      } catch (error) {
        // The database is away; the claim (if any) expires with its lease.
        this.logger.warn({ msg: 'Mail worker cannot reach the database', error: describeSendError(error).code });
        await this.sleep(POLL_INTERVAL_MS);
      }
    }
  }

  private async deliver(mail: MailMessage): Promise<void> {
    const context = { mailId: mail.id, recipients: mail.recipients.length, attempt: mail.attempts };
    try {
      await this.transport.send(mail);
    } catch (error) {
      const failure = describeSendError(error, this.secrets);
      const schedule = this.config.mailRetrySchedule;
      const delaySeconds = schedule[mail.attempts - 1];
      if (delaySeconds === undefined) {
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

  private wake(): void {
    if (this.wakeSleeper) this.wakeSleeper();
    else this.woken = true;
  }

  /** Waits up to `ms`, or less when woken; a wake-up that came while busy is not lost. */
  private sleep(ms: number): Promise<void> {
    if (this.woken || this.stopping) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.wakeSleeper = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakeSleeper = done;
    });
  }
}
