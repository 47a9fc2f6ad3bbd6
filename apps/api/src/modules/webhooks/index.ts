export { WebhooksModule } from './webhooks.module.js';
