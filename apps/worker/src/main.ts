import { loadTracing } from '../../api/src/tracing/load.js';

// Traces start (when OTEL_EXPORTER_OTLP_ENDPOINT is set) before the modules they instrument, http and pg, are loaded.
const tracing = await loadTracing('scheduling-worker');
const { NestFactory } = await import('@nestjs/core');
const { SystemClock } = await import('@app/common');
const { PinoNestLogger } = await import('../../api/src/logging/logger.js');
const { exitOnSignals, exitOnStartupFailure, prepareRuntime } = await import('../../api/src/runtime.js');
const { Metrics } = await import('../../api/src/metrics/index.js');
const { serveMetrics } = await import('./metrics-server.js');
const { WorkerModule } = await import('./worker.module.js');

/** Runs every background job (mail, webhooks, housekeeping) for API instances with RUN_WORKERS=false; any number may run. */
async function main(): Promise<void> {
  const runtime = await prepareRuntime({ embeddedDatabase: false, processName: 'worker' });
  const { config, logger } = runtime;
  // This process exists to run them, whatever the shared environment says for API instances.
  config.runWorkers = true;
  const app = await NestFactory.createApplicationContext(WorkerModule.register(config, new SystemClock()), {
    logger: new PinoNestLogger(logger),
    abortOnError: false,
  });
  // Its own /metrics (contract § 19): what this process counts, webhook attempts above all, is served nowhere else.
  const metricsServer = await serveMetrics(app.get(Metrics), config, logger).catch(async (error: unknown) => {
    await app.close();
    throw error;
  });
  exitOnSignals(runtime, async () => {
    await metricsServer.close();
    await app.close();
    await tracing?.shutdown();
  });
  logger.info({ metricsPort: metricsServer.port }, 'Worker running: mail, webhook delivery, reminders and housekeeping');
}

main().catch(exitOnStartupFailure);
