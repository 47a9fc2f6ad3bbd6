/**
 * Receivers for bench/reminders.bench.ts, forked into their own process so they do not share the service's event loop:
 * one webhook endpoint (verifies every signature) and one SMTP server. Keeps when each webhook event (first arrival per
 * webhook-id) and each mail arrived.
 *
 * Parent → child: { secret }, then { report: true } as often as it likes.
 * Child → parent: { port, smtpPort } once listening, { report } when asked.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { Webhook } from 'standardwebhooks';

export interface ReminderSinkReport {
  requests: number;
  unverified: number;
  duplicates: number;
  /** Arrival times (ms since the epoch) of each event's first delivery. */
  events: number[];
  /** Arrival times of each mail. */
  mails: number[];
}

let verifier: Webhook | undefined;
const seen = new Set<string>();
const report: ReminderSinkReport = { requests: 0, unverified: 0, duplicates: 0, events: [], mails: [] };

const http = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const receivedAt = Date.now();
    report.requests += 1;
    const headers = req.headers as Record<string, string>;
    try {
      verifier!.verify(Buffer.concat(chunks).toString('utf8'), headers);
    } catch {
      report.unverified += 1;
    }
    if (seen.has(headers['webhook-id'])) report.duplicates += 1;
    else {
      seen.add(headers['webhook-id']);
      report.events.push(receivedAt);
    }
    res.writeHead(204).end();
  });
});
await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));

const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  logger: false,
  onData(stream, _session, callback) {
    stream.on('data', () => undefined);
    stream.on('end', () => {
      report.mails.push(Date.now());
      callback();
    });
  },
});
await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));

process.on('message', (message: { secret?: string; report?: boolean; reset?: boolean }) => {
  if (message.secret) verifier = new Webhook(message.secret);
  if (message.reset) Object.assign(report, { requests: 0, unverified: 0, duplicates: 0, events: [], mails: [] });
  if (message.report) process.send!({ report });
});
process.send!({ port: (http.address() as AddressInfo).port, smtpPort: (smtp.server.address() as AddressInfo).port });
