import { DynamicModule, Module } from '@nestjs/common';
import { AppConfig, Clock } from '@app/common';
import { CoreModule } from '../../api/src/core.module.js';
import { MetricsModule } from '../../api/src/metrics/index.js';
import { AuditModule } from '../../api/src/modules/audit/index.js';
import { AuthHousekeepingModule } from '../../api/src/modules/auth/index.js';
import { BookingsModule } from '../../api/src/modules/bookings/index.js';
import { CalendarsModule } from '../../api/src/modules/calendars/calendars.module.js';
import { CalendarWritesModule } from '../../api/src/modules/calendar-writes/index.js';
import { GlobalLookupsModule } from '../../api/src/modules/global-lookups/index.js';
import { IdempotencyModule } from '../../api/src/modules/idempotency/index.js';
import { MailModule } from '../../api/src/modules/mail/index.js';
import { OutboxModule } from '../../api/src/modules/outbox/outbox.module.js';
import { WebhookDeliveriesModule } from '../../api/src/modules/webhook-deliveries/index.js';
import { WebhooksModule } from '../../api/src/modules/webhooks/index.js';

/**
 * Every background job without the HTTP server: the modules that own jobs (mail, webhooks and their deliveries, calendar sync and write-back, reminders) or
 * housekeeping (outbox retention, idempotency cleanup, auth's sessions and login failures). Controllers are not mounted in an
 * application context.
 */
@Module({})
export class WorkerModule {
  static register(config: AppConfig, clock: Clock): DynamicModule {
    return {
      module: WorkerModule,
      imports: [
        CoreModule.register(config, clock),
        MetricsModule,
        GlobalLookupsModule,
        OutboxModule,
        AuditModule,
        AuthHousekeepingModule,
        MailModule,
        WebhooksModule,
        WebhookDeliveriesModule,
        IdempotencyModule,
        CalendarsModule,
        CalendarWritesModule,
        BookingsModule,
      ],
    };
  }
}
