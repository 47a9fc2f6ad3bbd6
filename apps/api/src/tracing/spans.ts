import {
  type Attributes,
  type Context,
  context,
  isSpanContextValid,
  type Link,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';

/**
 * The service's own spans (contract § 19: job rounds, webhook attempts, mails sent), through @opentelemetry/api alone.
 * Without the SDK (OTEL_EXPORTER_OTLP_ENDPOINT unset) the API is a no-op: every span here is a non-recording one and
 * costs a few allocations.
 */
const tracer = trace.getTracer('scheduling-api');

export interface SpanOptions {
  kind?: SpanKind;
  attributes?: Attributes;
  /** The parent; the active context when absent. */
  parent?: Context;
  links?: Link[];
}

/** `work` inside a new active span that ends with it; a throw marks the span failed with the error's name or code, never its message. */
export function inSpan<T>(name: string, options: SpanOptions, work: (span: Span) => Promise<T>): Promise<T> {
  const { parent = context.active(), ...spanOptions } = options;
  return tracer.startActiveSpan(name, spanOptions, parent, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: errorName(error) });
      throw error;
    } finally {
      span.end();
    }
  });
}

/** A root span: a round of a job starts a trace of its own, whatever context started its loop. */
export function inRootSpan<T>(name: string, options: Omit<SpanOptions, 'parent'>, work: (span: Span) => Promise<T>): Promise<T> {
  return inSpan(name, { ...options, parent: ROOT_CONTEXT }, work);
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/**
 * The active span as a W3C `traceparent` (`00-<trace id>-<span id>-<flags>`), or null when no span records (tracing
 * off, or not sampled). Written with an outbox row, it lets the work that row causes later (a webhook attempt) join
 * the trace of the request that recorded it.
 */
export function activeTraceParent(): string | null {
  const span = trace.getSpan(context.active());
  if (!span?.isRecording()) return null;
  const { traceId, spanId, traceFlags } = span.spanContext();
  return `00-${traceId}-${spanId}-${traceFlags.toString(16).padStart(2, '0')}`;
}

/** The context a stored `traceparent` names, as a remote parent; undefined when there is none or it does not parse. */
export function contextOfTraceParent(traceParent: string | null | undefined): Context | undefined {
  const match = traceParent ? TRACEPARENT.exec(traceParent) : null;
  if (!match) return undefined;
  const spanContext = { traceId: match[1], spanId: match[2], traceFlags: parseInt(match[3], 16), isRemote: true };
  return isSpanContextValid(spanContext) ? trace.setSpanContext(ROOT_CONTEXT, spanContext) : undefined;
}

/** The active span, to link to from work that runs in another trace. */
export function activeSpanLink(): Link[] {
  const span = trace.getSpan(context.active());
  return span?.isRecording() ? [{ context: span.spanContext() }] : [];
}

let dropped = 0;

/** Spans the trace exporter could not deliver since the process started (0 with tracing off); GET /metrics reports it. */
export function droppedSpans(): number {
  return dropped;
}

/** The exporter's count (tracing.ts), kept here, where the metrics can read it without loading the SDK. */
export function countDroppedSpans(count: number): void {
  dropped += count;
}

function errorName(error: unknown): string {
  if (typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string') return error.code;
  return error instanceof Error ? error.name : 'unknown';
}

export { type Span, SpanKind, SpanStatusCode };
