import diagnostics from 'node:diagnostics_channel';
import {
  type Attributes,
  type AttributeValue,
  context,
  type DiagLogger,
  diag,
  DiagLogLevel,
  SpanKind,
  SpanStatusCode,
} from '@opentelemetry/api';
import {
  diagLogLevelFromString,
  type ExportResult,
  ExportResultCode,
  getRPCMetadata,
  RPCType,
  setGlobalErrorHandler,
} from '@opentelemetry/core';
import { OTLPTraceExporter as OtlpJsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpProtobufTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { BatchSpanProcessor, type ReadableSpan, type Span, type SpanExporter, type SpanProcessor } from '@opentelemetry/sdk-trace';
import type { FastifyInstance } from 'fastify';
import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import { createRootLogger } from '../logging/logger.js';
import { countDroppedSpans, droppedSpans } from './spans.js';
import { statementWithoutLiterals } from './statement-text.js';

/** A started SDK: `shutdown` exports what is queued, within a bound. */
export interface Tracing {
  shutdown(): Promise<void>;
}

/** At most this long for the last export on shutdown: an unreachable collector must not hold the process. */
const SHUTDOWN_EXPORT_MS = 3_000;
/** What `url.path` says for a request no route matched (its path is whatever the client typed). */
export const UNMATCHED_PATH = '(unmatched)';

/** The statement text attributes of pg's spans, by the semantic conventions before and after their database revision. */
const STATEMENT_ATTRIBUTES = ['db.query.text', 'db.statement'];
/**
 * What instrumentation-http puts on a request's span about who sent it (contract § 19: no span carries a client address
 * or user agent): the peer's and client's address and port, the User-Agent and what it derives from it.
 */
export const CLIENT_ATTRIBUTES = [
  'client.address',
  'client.port',
  'network.peer.address',
  'network.peer.port',
  'user_agent.original',
  'user_agent.synthetic.type',
  // The names of the conventions before their HTTP revision, should an instrumentation still write them.
  'http.client_ip',
  'http.user_agent',
  'net.peer.ip',
  'net.peer.name',
  'net.peer.port',
  'net.sock.peer.addr',
  'net.sock.peer.port',
];
/** Statement texts whose redacted form is kept (the service has a few hundred distinct statements). */
const STATEMENT_CACHE_SIZE = 1_000;

class TracingConfigError extends Error {}

/** OTLP over HTTP only (contract § 19), as protobuf (the default of the OTEL_* conventions) or JSON. */
function createExporter(env: NodeJS.ProcessEnv): SpanExporter {
  for (const name of ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'OTEL_EXPORTER_OTLP_ENDPOINT']) {
    const value = env[name];
    if (value === undefined || value === '') continue;
    let url: URL | undefined;
    try {
      url = new URL(value);
    } catch {
      url = undefined;
    }
    if (url?.protocol !== 'http:' && url?.protocol !== 'https:')
      throw new TracingConfigError(`${name} must be an http:// or https:// URL of an OTLP/HTTP collector (e.g. http://collector:4318)`);
  }
  const variable = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL' : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const protocol = env[variable] || 'http/protobuf';
  // Each exporter reads the endpoint, headers, timeout and compression from the same OTEL_* variables.
  if (protocol === 'http/protobuf') return new OtlpProtobufTraceExporter();
  if (protocol === 'http/json') return new OtlpJsonTraceExporter();
  throw new TracingConfigError(`${variable} must be http/protobuf or http/json (traces go over OTLP/HTTP), not ${protocol}`);
}

/**
 * The exporter that counts: a batch the collector did not take (unreachable, refused, timed out after the exporter's
 * own retries) is dropped, counted (otel_spans_dropped_total on GET /metrics) and logged once, and the service goes on
 * serving.
 */
class CountingExporter implements SpanExporter {
  /** Errors already logged here, so the SDK's global error handler does not log them a second time. */
  readonly reported = new WeakSet<Error>();

  constructor(
    private readonly inner: SpanExporter,
    private readonly logger: Logger,
  ) {}

  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    this.inner.export(spans, (result) => {
      if (result.code === ExportResultCode.SUCCESS) return resultCallback(result);
      countDroppedSpans(spans.length);
      const error = result.error ?? new Error('export failed');
      this.reported.add(error);
      this.logger.warn(
        { spans: spans.length, droppedSpans: droppedSpans(), error: error.message },
        'Trace export failed: the batch is dropped (OTEL_EXPORTER_OTLP_ENDPOINT)',
      );
      resultCallback({ code: result.code, error });
    });
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

/**
 * What leaves the process, whatever an instrumentation put in a span: a statement's text without its literal values
 * (the few constants a text spells, and whatever a future statement writes in) and a failed statement's status without
 * PostgreSQL's message (which may quote a value); a request's path as its route template and its query with names
 * only (ids, feed tokens and invitation tokens stay in the service, as in its logs); nothing of who sent the request
 * (CLIENT_ATTRIBUTES). Runs as each span ends, before the
 * batch processor takes it.
 */
class RedactingProcessor implements SpanProcessor {
  /** Most statements are the same few texts: each is read once. */
  private readonly statements = new LRUCache<string, string>({ max: STATEMENT_CACHE_SIZE });

  onStart(): void {}

  onEnding(span: Span): void {
    const attributes = span.attributes;
    for (const name of STATEMENT_ATTRIBUTES) {
      const text = attributes[name];
      if (typeof text === 'string') span.setAttribute(name, this.withoutLiterals(text));
    }
    if (attributes['db.system.name'] === 'postgresql' || attributes['db.system'] === 'postgresql') {
      if (span.status.code === SpanStatusCode.ERROR) span.setStatus({ code: SpanStatusCode.ERROR, message: 'PostgreSQL error' });
    }
    if (span.kind === SpanKind.SERVER) redactRequest(span, attributes);
  }

  onEnd(): void {}

  forceFlush(): Promise<void> {
    return Promise.resolve();
  }

  shutdown(): Promise<void> {
    return Promise.resolve();
  }

  private withoutLiterals(text: string): string {
    let redacted = this.statements.get(text);
    if (redacted === undefined) {
      redacted = statementWithoutLiterals(text);
      this.statements.set(text, redacted);
    }
    return redacted;
  }
}

function redactRequest(span: Span, attributes: Attributes): void {
  // A span's attributes can be overwritten but not removed through its interface: they go from the SDK's own record.
  for (const name of CLIENT_ATTRIBUTES) delete attributes[name];
  const route = attributes['http.route'];
  if (attributes['url.path'] !== undefined) span.setAttribute('url.path', typeof route === 'string' ? route : UNMATCHED_PATH);
  const query = attributes['url.query'];
  if (typeof query === 'string') span.setAttribute('url.query', queryNamesOnly(query));
}

/** `a=1&b=x` as `a=REDACTED&b=REDACTED`: which parameters a request had, not their values. */
function queryNamesOnly(query: string): AttributeValue {
  return [...new URLSearchParams(query).keys()].map((name) => `${encodeURIComponent(name)}=REDACTED`).join('&');
}

/**
 * What Fastify knows of a request, on the request's span: its route template (the http instrumentation names the span
 * after it and records `http.route` when the route is left in the request's RPC metadata) and its X-Request-Id (the
 * id the answer carries and the logs name; Fastify writes its headers in one writeHead, where the instrumentation does
 * not look). Fastify announces every instance it creates on this diagnostics channel, so the hook goes in without the
 * application knowing about tracing.
 */
function describeFastifyRequests(): void {
  diagnostics.subscribe('fastify.initialization', (message) => {
    const { fastify } = message as { fastify: FastifyInstance };
    fastify.addHook('onRequest', (request, _reply, done) => {
      const metadata = getRPCMetadata(context.active());
      if (metadata?.type === RPCType.HTTP) {
        if (request.routeOptions.url) metadata.route = request.routeOptions.url;
        metadata.span.setAttribute('http.response.header.x-request-id', [String(request.id)]);
      }
      done();
    });
  });
}

/** The SDK's own warnings and errors (a full queue's dropped spans, an instrumentation's failure) go to the service's log. */
function diagnosticsToLog(logger: Logger, reported: WeakSet<Error>): void {
  const write =
    (level: 'error' | 'warn' | 'info' | 'debug' | 'trace') =>
    (message: string, ...args: unknown[]): void =>
      logger[level]({ opentelemetry: args.length > 0 ? args.map(String).join(' ') : undefined }, message);
  const diagLogger: DiagLogger = {
    error: write('error'),
    warn: write('warn'),
    info: write('info'),
    debug: write('debug'),
    verbose: write('trace'),
  };
  const level = diagLogLevelFromString(process.env.OTEL_LOG_LEVEL) ?? DiagLogLevel.WARN;
  diag.setLogger(diagLogger, { logLevel: level, suppressOverrideMessage: true });
  setGlobalErrorHandler((error) => {
    if (error instanceof Error && reported.has(error)) return;
    logger.warn({ error: error instanceof Error ? error.message : String(error) }, 'OpenTelemetry error');
  });
}

/** pino refuses an unknown level; LOG_LEVEL itself is validated later, with the rest of the configuration. */
function loggerFor(env: NodeJS.ProcessEnv): Logger {
  const level = env.LOG_LEVEL ?? 'info';
  return createRootLogger(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(level) ? level : 'info');
}

/** The standard OTEL_BSP_* sizes and delays (a value that is not a number ≥ 0 is ignored, as the SDK does). */
function batchProcessor(exporter: SpanExporter, env: NodeJS.ProcessEnv): BatchSpanProcessor {
  const setting = (name: string): number | undefined => {
    const value = Number(env[name] || Number.NaN);
    return Number.isFinite(value) && value >= 0 ? value : undefined;
  };
  return new BatchSpanProcessor({
    exporter,
    maxQueueSize: setting('OTEL_BSP_MAX_QUEUE_SIZE'),
    scheduledDelayMillis: setting('OTEL_BSP_SCHEDULE_DELAY'),
    exportTimeoutMillis: setting('OTEL_BSP_EXPORT_TIMEOUT'),
    maxExportBatchSize: setting('OTEL_BSP_MAX_EXPORT_BATCH_SIZE'),
  });
}

/**
 * Starts the OpenTelemetry SDK (contract § 19): a span per HTTP request (an incoming W3C `traceparent` continued,
 * `X-Request-Id` as `http.response.header.x-request-id`), a child per database statement, and the service's own spans
 * (spans.ts). Called before the application's modules are imported (main.ts), so http and pg are instrumented when
 * they load. Only traces: metrics are Prometheus's (GET /metrics), so no metric or log exporter starts.
 */
export function startTracing(defaultServiceName: string, env: NodeJS.ProcessEnv = process.env): Tracing {
  const logger = loggerFor(env);
  let exporter: CountingExporter;
  try {
    exporter = new CountingExporter(createExporter(env), logger);
  } catch (error) {
    if (!(error instanceof TracingConfigError)) throw error;
    process.stderr.write(`Configuration error: ${error.message}\n`);
    process.exit(1);
  }
  const named = env.OTEL_SERVICE_NAME || /(^|,)\s*service\.name=/.test(env.OTEL_RESOURCE_ATTRIBUTES ?? '');
  const sdk = new NodeSDK({
    serviceName: named ? undefined : defaultServiceName,
    // The sampler comes from OTEL_TRACES_SAMPLER, the propagators from OTEL_PROPAGATORS (W3C trace context by default).
    spanProcessors: [new RedactingProcessor(), batchProcessor(exporter, env)],
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      new HttpInstrumentation({
        // Outgoing calls are webhook POSTs to customers' URLs (paths may hold their secrets): the attempt's own span
        // (webhook-delivery.worker.ts) says what an operator needs, and no traceparent goes to a customer.
        disableOutgoingRequestInstrumentation: true,
      }),
      new PgInstrumentation({
        // Statements of a request or a job round; a boot's migrations and connection bookkeeping start no traces.
        requireParentSpan: true,
        ignoreConnectSpans: true,
      }),
    ],
  });
  // After the SDK's constructor, which sets a console logger of its own when OTEL_LOG_LEVEL is set.
  diagnosticsToLog(logger, exporter.reported);
  sdk.start();
  describeFastifyRequests();
  logger.info('Tracing: spans go to the OTLP/HTTP collector of OTEL_EXPORTER_OTLP_ENDPOINT');
  return {
    shutdown: async () => {
      let timer: NodeJS.Timeout | undefined;
      const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, SHUTDOWN_EXPORT_MS)));
      await Promise.race([sdk.shutdown().catch(() => undefined), bound]);
      clearTimeout(timer);
    },
  };
}
