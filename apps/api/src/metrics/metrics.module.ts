import { Global, Module } from '@nestjs/common';
import { MetricsEndpoint } from './metrics.endpoint.js';
import { Metrics } from './metrics.js';
import { QueueMetricsReadModel } from './queue-metrics.read-model.js';

/**
 * Prometheus metrics (contract § 19): the instruments every module may count with (`Metrics`), and, in a process with
 * an HTTP server, `GET /metrics` and the hook that counts requests. Global, like the jobs' infrastructure: a feature
 * counts what it does without importing this module, and the worker loads it too.
 */
@Global()
@Module({
  providers: [Metrics, QueueMetricsReadModel, MetricsEndpoint],
  exports: [Metrics],
})
export class MetricsModule {}
