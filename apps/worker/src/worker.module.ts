import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppConfig, Clock } from '@app/common';
import { CoreModule } from '../../api/src/core.module.js';
import { IdempotencyModule } from '../../api/src/modules/idempotency/index.js';
import { MailModule } from '../../api/src/modules/mail/index.js';
import { OutboxModule } from '../../api/src/modules/outbox/outbox.module.js';
import { Organization } from '../../api/src/modules/team/entities/organization.entity.js';
import { WebhooksModule } from '../../api/src/modules/webhooks/index.js';

/**
 * Every background job without the HTTP server: the modules that own jobs (mail, webhooks) or
 * housekeeping (outbox retention, idempotency cleanup). Controllers are not mounted in an
 * application context. Organization is registered because webhooks reference it by foreign key, which
 * TypeORM needs to know to build its metadata.
 */
@Module({})
export class WorkerModule {
  static register(config: AppConfig, clock: Clock): DynamicModule {
    return {
      module: WorkerModule,
      imports: [
        CoreModule.register(config, clock),
        TypeOrmModule.forFeature([Organization]),
        OutboxModule,
        MailModule,
        WebhooksModule,
        IdempotencyModule,
      ],
    };
  }
}
