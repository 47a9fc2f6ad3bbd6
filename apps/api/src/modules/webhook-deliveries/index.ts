export { WebhookDeliveriesModule } from './webhook-deliveries.module.js';
