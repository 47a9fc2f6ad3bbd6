export { Metrics, type WebhookOutcome } from './metrics.js';
export { MetricsModule } from './metrics.module.js';
