import { loadTracing } from './tracing/load.js';

// Traces start (when OTEL_EXPORTER_OTLP_ENDPOINT is set) before the modules they instrument, http and pg, are loaded.
const tracing = await loadTracing('scheduling-api');
const { createApp } = await import('./bootstrap.js');
const { exitOnSignals, exitOnStartupFailure, prepareRuntime } = await import('./runtime.js');

async function main(): Promise<void> {
  const runtime = await prepareRuntime({ embeddedDatabase: true, processName: 'API' });
  const { config, logger } = runtime;
  const app = await createApp({ config, logger });
  exitOnSignals(runtime, async () => {
    await app.close();
    await tracing?.shutdown();
  });

  await app.listen({ port: config.port, host: '0.0.0.0' });
  logger.info({ url: `http://localhost:${config.port}/v1`, docs: `http://localhost:${config.port}/docs` }, 'Listening');
}

main().catch(exitOnStartupFailure);
