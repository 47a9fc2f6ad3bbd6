import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { DataSource } from 'typeorm';
import { TransactionHost } from '@app/database';
import { freePort } from '@app/database';
import { DomainEvents, type DomainEventType } from '../../apps/api/src/modules/outbox/domain-events.service.js';
import type { TestApp } from './app.js';
import { scopeOf } from './factories.js';
import type { HttpClient } from './http.js';

export interface ReceivedWebhook {
  path: string;
  webhookId: string;
  timestamp: string;
  signature: string;
  contentType: string | undefined;
  body: string;
  payload: any;
  /** Whether `standardwebhooks` accepted the signature with the secret registered for the path. */
  verified: boolean;
  verifyError?: string;
  receivedAt: number;
}

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  /** Answer after this long. */
  delayMs?: number;
  /** Never answer; the connection is dropped by `stop()`. */
  hang?: boolean;
}

export type Responder = (request: ReceivedWebhook, nth: number) => Reply;

/**
 * A customer's endpoint on 127.0.0.1: verifies every signature with the `standardwebhooks` package,
 * answers per path as told, and watches for two requests with the same webhook-id at the same time.
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  /** `path webhook-id` of requests that arrived while another for the same endpoint and id was still open. */
  readonly overlaps: string[] = [];
  connections = 0;
  private readonly secrets = new Map<string, string>();
  private readonly responders = new Map<string, Responder>();
  private readonly open = new Map<string, number>();
  private readonly sockets = new Set<Socket>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private server: Server | undefined;

  private constructor(readonly port: number) {}

  static async start(port?: number): Promise<WebhookReceiver> {
    const receiver = new WebhookReceiver(port ?? (await freePort()));
    await receiver.restart();
    return receiver;
  }

  url(path = '/hook'): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  /** The secret signatures on `path` must verify with (from the create response). */
  expectSecret(path: string, secret: string): void {
    this.secrets.set(path, secret);
  }

  respond(path: string, responder: Responder): void {
    this.responders.set(path, responder);
  }

  at(path: string): ReceivedWebhook[] {
    return this.received.filter((r) => r.path === path);
  }

  unverified(): ReceivedWebhook[] {
    return this.received.filter((r) => !r.verified);
  }

  /** Distinct webhook-ids seen on `path`. */
  ids(path: string): Set<string> {
    return new Set(this.at(path).map((r) => r.webhookId));
  }

  async waitFor(predicate: () => boolean, timeoutMs = 5000, what = 'webhooks'): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate()) {
      if (Date.now() > deadline) {
        const seen = this.received.map((r) => `${r.path} ${r.payload?.type ?? '?'}`).join(', ') || 'nothing';
        throw new Error(`Timed out waiting for ${what} (received: ${seen})`);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  async restart(): Promise<void> {
    if (this.server) return;
    const server = createServer((req, res) => this.handle(req, res));
    server.on('connection', (socket) => {
      this.connections += 1;
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.server = server;
  }

  /** Stops listening and drops every connection, hanging ones included: senders see a refused port. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const path = (req.url ?? '/').split('?')[0];
      const header = (name: string): string => String(req.headers[name] ?? '');
      const request: ReceivedWebhook = {
        path,
        webhookId: header('webhook-id'),
        timestamp: header('webhook-timestamp'),
        signature: header('webhook-signature'),
        contentType: req.headers['content-type'],
        body,
        payload: undefined,
        verified: false,
        receivedAt: Date.now(),
      };
      try {
        request.payload = JSON.parse(body);
      } catch {
        // recorded as is; the test sees payload undefined
      }
      const secret = this.secrets.get(path);
      try {
        if (!secret) throw new Error(`no secret registered for ${path}`);
        new Webhook(secret).verify(body, {
          'webhook-id': request.webhookId,
          'webhook-timestamp': request.timestamp,
          'webhook-signature': request.signature,
        });
        request.verified = true;
      } catch (error) {
        request.verifyError = error instanceof Error ? error.message : String(error);
      }
      const key = `${path} ${request.webhookId}`;
      const open = (this.open.get(key) ?? 0) + 1;
      this.open.set(key, open);
      if (open > 1) this.overlaps.push(key);
      this.received.push(request);
      const nth = this.at(path).filter((r) => r.webhookId === request.webhookId).length;
      const responder: Responder = this.responders.get(path) ?? (() => ({ status: 200 }));
      const reply = responder(request, nth);
      const close = (): void => {
        this.open.set(key, (this.open.get(key) ?? 1) - 1);
      };
      res.on('close', close);
      if (reply.hang) return;
      const send = (): void => {
        res.writeHead(reply.status, { 'content-type': 'text/plain', ...reply.headers });
        res.end('ok');
      };
      if (!reply.delayMs) return send();
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        send();
      }, reply.delayMs);
      this.timers.add(timer);
    });
  }
}

export async function createWebhook(
  http: HttpClient,
  auth: { token?: string; apiKey?: string },
  body: Record<string, unknown>,
): Promise<{ id: string; secret: string; webhook: any }> {
  const res = await http.post('/v1/webhooks', body, auth);
  if (res.status !== 201) throw new Error(`create webhook failed: ${res.status} ${res.text}`);
  return { id: res.body.webhook.id, secret: res.body.secret, webhook: res.body.webhook };
}

/** Records domain events through the app's own writer, as a feature does inside its use case. */
export async function recordEvents(
  t: TestApp,
  events: { organizationId: string; livemode?: boolean; type: DomainEventType; data?: Record<string, unknown> }[],
): Promise<string[]> {
  const writer = t.app.get(DomainEvents);
  return t.app.get(TransactionHost).transaction(async () => {
    const ids: string[] = [];
    for (const event of events) {
      ids.push(
        await writer.record(scopeOf(event.organizationId, event.livemode ?? true), {
          type: event.type,
          data: event.data ?? { note: 'recorded by a test' },
        }),
      );
    }
    return ids;
  });
}

export async function deliveries(http: HttpClient, auth: { token?: string; apiKey?: string }, webhookId: string): Promise<any[]> {
  const res = await http.get(`/v1/webhooks/${webhookId}/deliveries?limit=100`, auth);
  if (res.status !== 200) throw new Error(`deliveries failed: ${res.status} ${res.text}`);
  return res.body.deliveries;
}

export interface AttemptRow {
  attempt: number;
  response_status: number | null;
  error: string | null;
  duration_ms: number;
}

export async function attemptLog(t: TestApp, deliveryId: string): Promise<AttemptRow[]> {
  return t.app
    .get(DataSource)
    .query(`SELECT attempt, response_status, error, duration_ms FROM webhook_attempts WHERE delivery_id = $1 ORDER BY attempt`, [
      deliveryId,
    ]);
}

export async function eventually<T>(probe: () => Promise<T | undefined>, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
