import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { JobsModule } from '../../jobs/index.js';
import { WebhookAttempt } from './entities/webhook-attempt.entity.js';
import { WebhookDelivery } from './entities/webhook-delivery.entity.js';
import { Webhook } from './entities/webhook.entity.js';
import { WebhookDeliveryWorker } from './webhook-delivery.worker.js';
import { WebhookDispatcher } from './webhook-dispatcher.worker.js';
import { WebhookQueueRepository } from './webhook-queue.repository.js';
import { WebhookSecretReseal } from './webhook-secret-reseal.service.js';
import { WebhookSecrets } from './webhook-secrets.service.js';
import { WebhooksController } from './webhooks.controller.js';
import { WebhooksRepository } from './webhooks.repository.js';
import { WebhooksService } from './webhooks.service.js';

/**
 * Endpoints, and the workers that deliver to them (they run when AppConfig.runWorkers). Features never
 * import this module: they record domain events, which the dispatcher reads.
 */
@Module({
  imports: [TypeOrmModule.forFeature([Webhook, WebhookDelivery, WebhookAttempt]), JobsModule],
  controllers: [WebhooksController],
  providers: [
    WebhooksRepository,
    WebhookQueueRepository,
    WebhookSecrets,
    WebhookSecretReseal,
    WebhooksService,
    WebhookDispatcher,
    WebhookDeliveryWorker,
  ],
})
export class WebhooksModule {}
