import type { Tracing } from './tracing.js';

/**
 * Starts tracing when an OTLP endpoint is configured (contract § 19), and loads nothing of the SDK otherwise. A process's
 * entry point awaits this before it imports the rest of the application, so http and pg are instrumented as they load.
 */
export async function loadTracing(defaultServiceName: string, env: NodeJS.ProcessEnv = process.env): Promise<Tracing | undefined> {
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT && !env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return undefined;
  // The standard switch: off with the endpoint set, and then nothing loaded either (instrumentations patch when built).
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  const { startTracing } = await import('./tracing.js');
  return startTracing(defaultServiceName, env);
}
