import { randomBytes } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import nodemailer, { type SendMailOptions, type Transporter } from 'nodemailer';
import { AppConfig } from '@app/common';
import type { MailMessage } from './entities/mail-message.entity.js';

/** A server that accepts the connection and then stalls must not hold the worker (and its lease) for minutes. */
const SMTP_TIMEOUT_MS = 10_000;
/** SMTP connections one process keeps open at most; `MailWorker` sends as many messages at once. */
export const MAX_CONNECTIONS = 8;
/** Upper bound for one whole send; `MailWorker`'s lease is several times longer. */
export const SEND_TIMEOUT_MS = 60_000;

/** Where a claimed message goes: an SMTP server, or `.eml` files in development. */
export abstract class MailTransport {
  abstract send(mail: MailMessage): Promise<void>;
  abstract close(): void;
}

function domainOf(address: string): string {
  return /@([^\s>@]+)>?\s*$/.exec(address)?.[1] ?? 'localhost';
}

/** The Message-ID is derived from the outbox id, so a retried message reads as the same one to receivers. */
function composeOptions(mail: MailMessage, from: string): SendMailOptions {
  return {
    from,
    to: mail.recipients,
    subject: mail.subject,
    text: mail.textBody,
    html: mail.htmlBody,
    messageId: `<${mail.id}@${domainOf(from)}>`,
    icalEvent: mail.ical ? { method: mail.ical.method, filename: mail.ical.filename, content: mail.ical.content } : undefined,
    // Bodies are our own text; never let them pull in local files or URLs.
    disableFileAccess: true,
    disableUrlAccess: true,
  };
}

export class SmtpMailTransport extends MailTransport {
  private readonly transporter: Transporter;

  constructor(
    url: string,
    private readonly from: string,
  ) {
    super();
    // Pooled: the connection stays open between messages. A new one per message cost ~110 ms against a local server
    // (the SMTP handshake and QUIT each time), a pooled one ~4 ms; a burst of reminders is thousands of messages.
    this.transporter = nodemailer.createTransport({
      url,
      pool: true,
      maxConnections: MAX_CONNECTIONS,
      connectionTimeout: SMTP_TIMEOUT_MS,
      greetingTimeout: SMTP_TIMEOUT_MS,
      socketTimeout: SMTP_TIMEOUT_MS,
      dnsTimeout: SMTP_TIMEOUT_MS,
      logger: false,
    });
  }

  async send(mail: MailMessage): Promise<void> {
    await this.transporter.sendMail({ ...composeOptions(mail, this.from), signal: AbortSignal.timeout(SEND_TIMEOUT_MS) });
  }

  close(): void {
    this.transporter.close();
  }
}

/** Development fallback: the raw RFC 822 message, openable in any mail client. */
export class FileMailTransport extends MailTransport {
  private readonly composer = nodemailer.createTransport({ streamTransport: true, buffer: true });

  constructor(
    private readonly directory: string,
    private readonly from: string,
  ) {
    super();
  }

  async send(mail: MailMessage): Promise<void> {
    const info = await this.composer.sendMail(composeOptions(mail, this.from));
    const raw = Buffer.isBuffer(info.message) ? info.message : Buffer.from(String(info.message));
    await mkdir(this.directory, { recursive: true });
    // Written beside and renamed, so whoever watches the folder never reads half a message.
    const partial = join(this.directory, `.${mail.id}.${randomBytes(4).toString('hex')}.tmp`);
    await writeFile(partial, raw);
    await rename(partial, join(this.directory, `${mail.id}.eml`));
  }

  close(): void {
    this.composer.close();
  }
}

export function createMailTransport(config: AppConfig): MailTransport {
  return config.smtpUrl
    ? new SmtpMailTransport(config.smtpUrl, config.mailFrom)
    : new FileMailTransport(join(config.dataDir, 'mail'), config.mailFrom);
}
