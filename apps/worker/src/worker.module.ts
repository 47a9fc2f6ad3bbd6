import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppConfig, Clock } from '@app/common';
import { CoreModule } from '../../api/src/core.module.js';
import { MailModule } from '../../api/src/modules/mail/index.js';
import { Organization } from '../../api/src/modules/team/entities/organization.entity.js';
import { WebhooksModule } from '../../api/src/modules/webhooks/index.js';

/**
 * The API's own mail and webhook modules without the HTTP server. Organization is registered only
 * because webhooks reference it by foreign key, which TypeORM needs to know to build its metadata.
 */
@Module({})
export class WorkerModule {
  static register(config: AppConfig, clock: Clock): DynamicModule {
    return {
      module: WorkerModule,
      imports: [CoreModule.register(config, clock), TypeOrmModule.forFeature([Organization]), MailModule, WebhooksModule],
    };
  }
}
