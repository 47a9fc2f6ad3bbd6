import { EventEmitter } from 'node:events';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';
import { freePort } from '@app/database';

export interface ReceivedMail {
  /** SMTP envelope: who the client said it sends from and to (Bcc recipients show up only here). */
  envelope: { from: string | undefined; to: string[] };
  /** The message as mailparser reads it: subject, text, html, attachments (an ical part is one of them). */
  parsed: ParsedMail;
  raw: Buffer;
}

export interface SmtpTestServerOptions {
  /** Defaults to a free port. */
  port?: number;
  /** Hold each message this long before accepting it: a slow server. */
  delayMs?: number;
}

/**
 * A real SMTP server for e2e tests (no TLS, any or no login accepted) that keeps every message it
 * accepts. It can be stopped and started again on the same port, to play a server that is down.
 */
export class SmtpTestServer {
  /** Every message accepted since creation, across restarts, oldest first. */
  readonly messages: ReceivedMail[] = [];
  private readonly events = new EventEmitter();
  private server: SMTPServer | undefined;

  private constructor(
    readonly port: number,
    private readonly delayMs: number,
  ) {}

  static async start(options: SmtpTestServerOptions = {}): Promise<SmtpTestServer> {
    const smtp = new SmtpTestServer(options.port ?? (await freePort()), options.delayMs ?? 0);
    await smtp.restart();
    return smtp;
  }

  /** For the app's `SMTP_URL`. */
  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.server !== undefined;
  }

  /** Starts listening again on the same port after `stop()`; does nothing when running. */
  async restart(): Promise<void> {
    if (this.server) return;
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      allowInsecureAuth: true,
      logger: false,
      closeTimeout: 500,
      onAuth: (auth, _session, callback) => callback(null, { user: auth.username ?? 'anonymous' }),
      onData: (stream, session, callback) => {
        this.receive(stream, session).then(
          () => callback(),
          (error: Error) => callback(error),
        );
      },
    });
    // Clients dropping connections are normal in these tests; without a listener they would crash Jest.
    server.on('error', () => undefined);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.server = server;
  }

  /** Stops listening and drops open connections; clients see "connection refused" until `restart()`. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** The first message, received before or after the call, that matches; rejects after `timeoutMs`. */
  waitForMail(predicate: (mail: ReceivedMail) => boolean = () => true, timeoutMs = 5000): Promise<ReceivedMail> {
    const found = this.messages.find(predicate);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const onMail = (mail: ReceivedMail): void => {
        if (!predicate(mail)) return;
        clearTimeout(timer);
        this.events.off('mail', onMail);
        resolve(mail);
      };
      const timer = setTimeout(() => {
        this.events.off('mail', onMail);
        const subjects = this.messages.map((m) => m.parsed.subject).join(', ') || 'none';
        reject(new Error(`No matching mail within ${timeoutMs} ms (received: ${subjects})`));
      }, timeoutMs);
      this.events.on('mail', onMail);
    });
  }

  /** Messages whose subject is exactly `subject`. */
  withSubject(subject: string): ReceivedMail[] {
    return this.messages.filter((m) => m.parsed.subject === subject);
  }

  private async receive(stream: SMTPServerDataStream, session: SMTPServerSession): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const parsed = await simpleParser(raw);
    if (this.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    const mailFrom = session.envelope.mailFrom;
    const mail: ReceivedMail = {
      envelope: { from: mailFrom ? mailFrom.address : undefined, to: session.envelope.rcptTo.map((r) => r.address) },
      parsed,
      raw,
    };
    this.messages.push(mail);
    this.events.emit('mail', mail);
  }
}

export function startSmtpServer(options?: SmtpTestServerOptions): Promise<SmtpTestServer> {
  return SmtpTestServer.start(options);
}
