/**
 * Receivers for bench/webhooks.bench.ts, forked into their own process so they do not share the
 * service's event loop. Verifies every signature and keeps, per first delivery of an event to an
 * endpoint, when it arrived and when the event was created.
 *
 * Parent → child: { secrets: Record<port, secret> }, then { report: true } as often as it likes.
 * Child → parent: { ports: number[] } once listening, { report } when asked.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface SinkReport {
  requests: number;
  unverified: number;
  duplicates: number;
  /** [event id, receivedAt − createdAt in ms, receivedAt] per endpoint and event, first arrival only. */
  arrivals: [string, number, number][];
}

const ENDPOINTS = 3;
const secrets = new Map<string, Webhook>();
const seen = new Set<string>();
const report: SinkReport = { requests: 0, unverified: 0, duplicates: 0, arrivals: [] };

function handle(port: number, body: string, headers: Record<string, string>): void {
  const receivedAt = Date.now();
  report.requests += 1;
  try {
    secrets.get(String(port))!.verify(body, headers);
  } catch {
    report.unverified += 1;
  }
  const key = `${port} ${headers['webhook-id']}`;
  if (seen.has(key)) {
    report.duplicates += 1;
    return;
  }
  seen.add(key);
  const payload = JSON.parse(body) as { id: string; createdAt: string };
  report.arrivals.push([payload.id, receivedAt - Date.parse(payload.createdAt), receivedAt]);
}

const ports = await Promise.all(
  Array.from(
    { length: ENDPOINTS },
    () =>
      new Promise<number>((resolve) => {
        const server = createServer((req, res) => {
          const chunks: Buffer[] = [];
          req.on('data', (c: Buffer) => chunks.push(c));
          req.on('end', () => {
            handle((server.address() as AddressInfo).port, Buffer.concat(chunks).toString('utf8'), req.headers as Record<string, string>);
            res.writeHead(204).end();
          });
        });
        server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
      }),
  ),
);

process.on('message', (message: { secrets?: Record<string, string>; report?: boolean }) => {
  if (message.secrets) for (const [port, secret] of Object.entries(message.secrets)) secrets.set(port, new Webhook(secret));
  if (message.report) process.send!({ report });
});
process.send!({ ports });
