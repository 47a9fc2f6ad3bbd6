import { createApp } from './bootstrap.js';
import { exitOnSignals, exitOnStartupFailure, prepareRuntime } from './runtime.js';

async function main(): Promise<void> {
  const runtime = await prepareRuntime({ embeddedDatabase: true, processName: 'API' });
  const { config, logger } = runtime;
  const app = await createApp({ config, logger });
  exitOnSignals(runtime, () => app.close());

  await app.listen({ port: config.port, host: '0.0.0.0' });
  logger.info({ url: `http://localhost:${config.port}/v1`, docs: `http://localhost:${config.port}/docs` }, 'Listening');
}

main().catch(exitOnStartupFailure);
