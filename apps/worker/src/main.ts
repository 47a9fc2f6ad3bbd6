import { NestFactory } from '@nestjs/core';
import { SystemClock } from '@app/common';
import { PinoNestLogger } from '../../api/src/logging/logger.js';
import { exitOnSignals, exitOnStartupFailure, prepareRuntime } from '../../api/src/runtime.js';
import { WorkerModule } from './worker.module.js';

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
  exitOnSignals(runtime, () => app.close());
  logger.info('Worker running: mail, webhook delivery, reminders and housekeeping');
}

main().catch(exitOnStartupFailure);
