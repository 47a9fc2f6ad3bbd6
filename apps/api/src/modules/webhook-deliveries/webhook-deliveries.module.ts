import { Module } from '@nestjs/common';
import { JobsModule } from '../../jobs/index.js';
import { WebhooksModule } from '../webhooks/index.js';
import { WebhookDeliveryWorker } from './webhook-delivery.worker.js';
import { WebhookDispatcher } from './webhook-dispatcher.worker.js';

/**
 * The workers that deliver webhooks (they run when AppConfig.runWorkers): the dispatcher fans committed domain events
 * out into deliveries, the delivery worker sends them. They own no table: the webhooks module's WebhookQueue holds the
 * deliveries. Features never import this module.
 */
@Module({
  imports: [WebhooksModule, JobsModule],
  providers: [WebhookDispatcher, WebhookDeliveryWorker],
})
export class WebhookDeliveriesModule {}
