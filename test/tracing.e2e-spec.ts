import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { freePort } from '@app/database';
import { TEST_DB_POOL_SIZE, TEST_JWT_SECRET } from './support/app.js';
import { cloneTestDatabase } from './support/database.js';
import { createApiKey, registerOwner } from './support/factories.js';
import { HttpClient } from './support/http.js';
import { cleanEnv, compiledServer, spawnShell, waitFor, type SpawnedProcess } from './support/process.js';
import { createWebhook, WebhookReceiver } from './support/webhooks.js';

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');

/** A span as an OTLP/HTTP JSON export carries it, with its attributes as plain values. */
interface ExportedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  links: { traceId: string; spanId: string }[];
  status: { code?: number; message?: string };
  service: string;
}

/** What instrumentation-http writes about a request's sender by default; none of it may leave (contract § 19). */
const CLIENT_ATTRIBUTES = [
  'client.address',
  'client.port',
  'network.peer.address',
  'network.peer.port',
  'user_agent.original',
  'user_agent.synthetic.type',
  'http.client_ip',
  'http.user_agent',
  'net.peer.ip',
  'net.peer.port',
];
const USER_AGENT = 'Mozilla/5.0 TracingBrowser/1.0';

const SERVER = 2;
const CLIENT = 3;

type OtlpValue = {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
  arrayValue?: { values?: OtlpValue[] };
};
type OtlpAttribute = { key: string; value: OtlpValue };

function plain(value: OtlpValue): unknown {
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(plain);
  if (value.intValue !== undefined) return Number(value.intValue);
  return value.stringValue ?? value.boolValue ?? value.doubleValue;
}

function attributesOf(list: OtlpAttribute[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map(({ key, value }) => [key, plain(value)]));
}

/**
 * A collector's OTLP/HTTP traces endpoint (`POST /v1/traces`, JSON): decodes every export into spans. `stop()` closes
 * it and its connections, which makes the endpoint unreachable for the exporter (connection refused).
 */
class OtlpReceiver {
  readonly spans: ExportedSpan[] = [];
  private readonly sockets = new Set<Socket>();
  private readonly server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method !== 'POST' || request.url !== '/v1/traces') {
        response.writeHead(404).end();
        return;
      }
      const raw = Buffer.concat(chunks);
      this.take(JSON.parse((request.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw).toString('utf8')));
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });

  private constructor(readonly port: number) {
    this.server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
  }

  static async start(): Promise<OtlpReceiver> {
    const receiver = new OtlpReceiver(await freePort());
    await new Promise<void>((done) => receiver.server.listen(receiver.port, '127.0.0.1', done));
    return receiver;
  }

  get endpoint(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    if (this.server.listening) await new Promise((done) => this.server.close(done));
  }

  trace(traceId: string): ExportedSpan[] {
    return this.spans.filter((span) => span.traceId === traceId);
  }

  private take(body: {
    resourceSpans?: {
      resource?: { attributes?: OtlpAttribute[] };
      scopeSpans?: {
        spans?: {
          traceId: string;
          spanId: string;
          parentSpanId?: string;
          name: string;
          kind: number;
          attributes?: OtlpAttribute[];
          links?: { traceId: string; spanId: string }[];
          status?: { code?: number; message?: string };
        }[];
      }[];
    }[];
  }): void {
    for (const resourceSpans of body.resourceSpans ?? []) {
      const service = String(attributesOf(resourceSpans.resource?.attributes)['service.name']);
      for (const scope of resourceSpans.scopeSpans ?? []) {
        for (const span of scope.spans ?? []) {
          this.spans.push({
            traceId: span.traceId,
            spanId: span.spanId,
            parentSpanId: span.parentSpanId ?? '',
            name: span.name,
            kind: span.kind,
            attributes: attributesOf(span.attributes),
            links: (span.links ?? []).map(({ traceId, spanId }) => ({ traceId, spanId })),
            status: span.status ?? {},
            service,
          });
        }
      }
    }
  }
}

/** The next weekday at least two days ahead, 10:00 UTC: inside the 09:00–17:00 schedule, outside any notice period. */
function bookableStart(): string {
  const day = new Date(Date.now() + 2 * 86_400_000);
  while (day.getUTCDay() === 0 || day.getUTCDay() === 6) day.setUTCDate(day.getUTCDate() + 1);
  return `${day.toISOString().slice(0, 10)}T10:00:00.000Z`;
}

describe('Traces over OTLP/HTTP (contract § 19)', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'sched-tracing-'));
  let entry: string;
  let collector: OtlpReceiver;
  let hooks: WebhookReceiver;
  let api: SpawnedProcess | undefined;
  let drop: (() => Promise<void>) | undefined;
  let http: HttpClient;

  beforeAll(async () => {
    // Type-checked by `npm run typecheck`; here the entry point is only compiled as production runs it.
    const [database, server] = await Promise.all([cloneTestDatabase(), compiledServer()]);
    entry = server.api;
    drop = database.drop;
    [collector, hooks] = await Promise.all([OtlpReceiver.start(), WebhookReceiver.start()]);
    const port = await freePort();
    api = spawnShell(
      `exec node ${entry}`,
      {
        ...cleanEnv({}),
        NODE_ENV: 'test',
        PORT: String(port),
        DATABASE_URL: database.url,
        JWT_SECRET: TEST_JWT_SECRET,
        DB_POOL_SIZE: TEST_DB_POOL_SIZE,
        LOG_LEVEL: 'info',
        DATA_DIR: join(scratch, 'data'),
        ADMIN_DIR: join(scratch, 'no-console'),
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_SERVICE_NAME: 'scheduling-api-under-test',
        // Export at once, and give up on an unreachable collector within a second (its retries included).
        OTEL_BSP_SCHEDULE_DELAY: '50',
        OTEL_EXPORTER_OTLP_TIMEOUT: '1000',
      },
      ROOT,
    );
    http = new HttpClient(`http://127.0.0.1:${port}`, { checkContract: false });
    await waitFor(async () => ((await fetch(`${http.baseUrl}/health/ready`)).status === 200 ? true : undefined), 30_000, 'the API');
  }, 120_000);

  afterAll(async () => {
    if (api && api.child.exitCode === null && api.child.signalCode === null) api.child.kill('SIGKILL');
    await api?.exited;
    await Promise.all([collector?.stop(), hooks?.stop()]);
    await drop?.();
    rmSync(scratch, { recursive: true, force: true });
  });

  it("puts a booking's request, its statements (no literal values) and the webhook attempt that followed in the caller's trace", async () => {
    const owner = await registerOwner(http);
    const auth = { token: owner.accessToken };
    const schedules = [1, 2, 3, 4, 5].map((dayOfWeek) => ({ dayOfWeek, slots: [{ startTime: '09:00', endTime: '17:00' }] }));
    expect((await http.put('/v1/availability/schedules', { timezone: 'UTC', schedules }, auth)).status).toBe(200);
    const eventType = await http.post('/v1/event-types', { title: 'Traced', slug: 'traced', durationMinutes: 30 }, auth);
    expect(eventType.status).toBe(201);
    const { apiKey } = await createApiKey(http, owner.accessToken, { rateLimitPerMinute: 1000 });
    const hook = await createWebhook(http, auth, { url: hooks.url('/traced'), events: ['booking.created'] });
    hooks.expectSecret('/traced', hook.secret);

    // The caller's trace: the request continues it.
    const traceId = randomBytes(16).toString('hex');
    const callerSpanId = randomBytes(8).toString('hex');
    const requestId = `req_traced_${randomBytes(4).toString('hex')}`;
    const attendee = { email: 'grace.hopper@example.com', firstName: 'Grace', lastName: 'Hopper' };
    const startTime = bookableStart();
    const booked = await http.post(
      '/v1/bookings',
      { eventTypeId: eventType.body.eventType.id, startTime, timezone: 'UTC', attendee, metadata: { note: 'tracing-secret-note' } },
      {
        apiKey,
        headers: { traceparent: `00-${traceId}-${callerSpanId}-01`, 'x-request-id': requestId, 'user-agent': USER_AGENT },
      },
    );
    expect(booked.status).toBe(201);
    const delivered = await waitFor(async () => hooks.at('/traced')[0], 15_000, 'the webhook');
    expect(delivered.verified).toBe(true);

    // The webhook attempt's span arrives after the receiver's answer is recorded.
    const spans = await waitFor(
      async () => {
        const trace = collector.trace(traceId);
        return trace.some((span) => span.name === 'webhook attempt' && span.attributes['webhook.outcome'] === 'succeeded')
          ? trace
          : undefined;
      },
      15_000,
      "the booking's trace with its webhook attempt",
    );

    const request = spans.filter((span) => span.kind === SERVER);
    expect(request).toHaveLength(1);
    expect(request[0]).toMatchObject({
      name: 'POST /v1/bookings',
      parentSpanId: callerSpanId,
      service: 'scheduling-api-under-test',
      attributes: expect.objectContaining({
        'http.route': '/v1/bookings',
        'http.response.status_code': 201,
        'http.response.header.x-request-id': [requestId],
        'url.path': '/v1/bookings',
      }),
    });

    // Nothing of who sent it (contract § 19): no client or peer address or port, no user agent, on any span.
    for (const span of collector.spans) {
      for (const name of CLIENT_ATTRIBUTES) expect([span.name, name, span.attributes[name]]).toEqual([span.name, name, undefined]);
      for (const value of Object.values(span.attributes)) expect(String(value)).not.toContain('TracingBrowser');
    }
    expect(request[0].attributes['http.request.method']).toBe('POST');

    // Each statement is a child (or grandchild) of the request, its text without the booking's values.
    const byId = new Map(spans.map((span) => [span.spanId, span]));
    const underRequest = (span: ExportedSpan): boolean => {
      for (let at: ExportedSpan | undefined = span; at; at = byId.get(at.parentSpanId)) if (at === request[0]) return true;
      return false;
    };
    const statements = spans.filter((span) => span.attributes['db.system.name'] === 'postgresql' && underRequest(span));
    expect(statements.length).toBeGreaterThanOrEqual(3);
    const texts = statements.map((span) => String(span.attributes['db.query.text']));
    expect(texts.some((text) => /INSERT INTO "?bookings"?/.test(text))).toBe(true);
    // The booking's writes went together in one round trip, their values bound (TransactionHost.batched): one span, `$n`.
    const batch = texts.find((text) => text.includes('INSERT INTO bookings') && text.includes('INSERT INTO domain_events'));
    expect(batch).toMatch(/VALUES \(\$1, \$2, \$3/);
    for (const span of statements) expect(span.kind).toBe(CLIENT);
    for (const text of texts) {
      for (const value of [attendee.email, attendee.firstName, attendee.lastName, startTime.slice(0, 10), 'tracing-secret-note', apiKey])
        expect(text).not.toContain(value);
    }

    // The attempt joined the request's trace through the outbox row, and links to the job round that claimed it.
    const [attempt] = spans.filter((span) => span.name === 'webhook attempt');
    expect(attempt).toMatchObject({
      parentSpanId: request[0].spanId,
      kind: CLIENT,
      attributes: expect.objectContaining({
        'webhook.id': hook.id,
        'webhook.event_id': delivered.webhookId,
        'webhook.attempt': 1,
        'webhook.outcome': 'succeeded',
        'http.response.status_code': 200,
      }),
    });
    expect(attempt.links).toHaveLength(1);
    const round = await waitFor(async () => collector.spans.find((span) => span.spanId === attempt.links[0].spanId), 5_000, 'the round');
    expect(round).toMatchObject({ name: 'job webhook-delivery', parentSpanId: '', attributes: { 'job.name': 'webhook-delivery' } });
    expect(round.traceId).toBe(attempt.links[0].traceId);
    expect(round.traceId).not.toBe(traceId);

    // The confirmation mail went in a mail round of its own trace, a span per message.
    const mail = await waitFor(async () => collector.spans.find((span) => span.name === 'mail send'), 15_000, 'the mail span');
    const mailRound = collector.spans.find((span) => span.spanId === mail.parentSpanId);
    expect(mailRound).toMatchObject({ name: 'job mail-worker', traceId: mail.traceId });
  }, 60_000);

  it.each([
    ['an endpoint that is not an http(s) URL', { OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }, 'OTEL_EXPORTER_OTLP_ENDPOINT must be'],
    ['a protocol other than OTLP/HTTP', { OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, 'OTEL_EXPORTER_OTLP_PROTOCOL must be'],
  ])('stops the boot on %s, naming the variable', async (_name, settings, message) => {
    const env = { ...cleanEnv({}), NODE_ENV: 'test', OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint, ...settings };
    const refused = spawnShell(`exec node ${entry}`, env, ROOT);
    expect(await refused.exited).toBe(1);
    expect(refused.output()).toMatch(new RegExp(`^Configuration error: ${message}`, 'm'));
  });

  it('keeps serving when the collector is unreachable, dropping and counting the spans it could not send', async () => {
    await collector.stop();
    const before = collector.spans.length;
    for (let i = 0; i < 3; i++) expect((await http.get('/health/ready')).status).toBe(200);
    expect((await http.post('/v1/auth/login', { email: 'nobody@example.com', password: 'wrong password' })).status).toBe(401);

    const line = await waitFor(
      async () =>
        api!
          .output()
          .split('\n')
          .map((text) => (text.startsWith('{') ? (JSON.parse(text) as Record<string, unknown>) : undefined))
          .find((entry) => entry?.msg === 'Trace export failed: the batch is dropped (OTEL_EXPORTER_OTLP_ENDPOINT)'),
      15_000,
      'the failed export in the log',
    );
    expect(line).toMatchObject({ level: 'warn', spans: expect.any(Number), droppedSpans: expect.any(Number) });
    expect(line.droppedSpans).toBeGreaterThanOrEqual(line.spans as number);
    expect(collector.spans.length).toBe(before);
    // Counted where operators look: the instance's metrics (loopback may scrape without METRICS_TOKEN).
    const metrics = await (await fetch(`${http.baseUrl}/metrics`)).text();
    const counted = Number(/^otel_spans_dropped_total (\d+)$/m.exec(metrics)?.[1]);
    expect(counted).toBeGreaterThanOrEqual(line.droppedSpans as number);
    // Still serving, and not slower for it: the export runs beside the requests.
    const started = Date.now();
    expect((await http.get('/health/ready')).status).toBe(200);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(api!.child.exitCode).toBeNull();
  }, 30_000);
});
