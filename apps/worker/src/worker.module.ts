import { DynamicModule, Module } from '@nestjs/common';
import { AppConfig, Clock } from '@app/common';
import { CoreModule } from '../../api/src/core.module.js';
import { IdempotencyModule } from '../../api/src/modules/idempotency/index.js';
import { MailModule } from '../../api/src/modules/mail/index.js';
import { OutboxModule } from '../../api/src/modules/outbox/outbox.module.js';
import { WebhooksModule } from '../../api/src/modules/webhooks/index.js';

/**
 * Every background job without the HTTP server: the modules that own jobs (mail, webhooks) or
 * housekeeping (outbox retention, idempotency cleanup). Controllers are not mounted in an
 * application context.
 */
@Module({})
export class WorkerModule {
  static register(config: AppConfig, clock: Clock): DynamicModule {
    return {
      module: WorkerModule,
      imports: [CoreModule.register(config, clock), OutboxModule, MailModule, WebhooksModule, IdempotencyModule],
    };
  }
}
