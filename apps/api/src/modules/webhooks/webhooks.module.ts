import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { JobsModule } from '../../jobs/index.js';
import { WebhookAttempt } from './entities/webhook-attempt.entity.js';
import { WebhookDelivery } from './entities/webhook-delivery.entity.js';
import { Webhook } from './entities/webhook.entity.js';
import { WebhookQueueRepository } from './webhook-queue.repository.js';
import { WebhookQueue } from './webhook-queue.service.js';
import { WebhookSecretReseal } from './webhook-secret-reseal.service.js';
import { WebhookSecrets } from './webhook-secrets.service.js';
import { WebhooksController } from './webhooks.controller.js';
import { WebhooksRepository } from './webhooks.repository.js';
import { WebhooksService } from './webhooks.service.js';

/**
 * Endpoints, their deliveries and attempt log (the tables), and the re-sealing of their secrets. The workers that
 * deliver are modules/webhook-deliveries, through the exported WebhookQueue. Features never import this module:
 * they record domain events, which the dispatcher reads.
 */
@Module({
  imports: [TypeOrmModule.forFeature([Webhook, WebhookDelivery, WebhookAttempt]), JobsModule],
  controllers: [WebhooksController],
  providers: [WebhooksRepository, WebhookQueueRepository, WebhookSecrets, WebhookSecretReseal, WebhooksService, WebhookQueue],
  exports: [WebhookQueue],
})
export class WebhooksModule {}
