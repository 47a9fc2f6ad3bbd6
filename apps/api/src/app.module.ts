import { DynamicModule, Module, Type } from '@nestjs/common';
import { AppConfig, Clock } from '@app/common';
import { CoreModule } from './core.module.js';
import { MetricsModule } from './metrics/index.js';
import { ApiKeysModule } from './modules/api-keys/api-keys.module.js';
import { AuditModule } from './modules/audit/index.js';
import { AuthModule } from './modules/auth/index.js';
import { AvailabilityModule } from './modules/availability/availability.module.js';
import { ConsoleSessionModule } from './modules/console-session/index.js';
import { CalendarsModule } from './modules/calendars/calendars.module.js';
import { CalendarWritesModule } from './modules/calendar-writes/index.js';
import { BookingsModule } from './modules/bookings/bookings.module.js';
import { CalendarFeedsModule } from './modules/calendar-feeds/index.js';
import { HoldsModule } from './modules/holds/index.js';
import { BookingSeriesModule } from './modules/booking-series/index.js';
import { BookingRemindersModule } from './modules/booking-reminders/index.js';
import { SchedulesModule } from './modules/schedules/index.js';
import { PublicBookingModule } from './modules/public-booking/public-booking.module.js';
import { ErasureModule } from './modules/erasure/index.js';
import { EnterpriseIdentityModule } from './modules/enterprise-identity/index.js';
import { EventTypesModule } from './modules/event-types/event-types.module.js';
import { GlobalLookupsModule } from './modules/global-lookups/index.js';
import { HealthModule } from './modules/health/health.module.js';
import { MailModule } from './modules/mail/mail.module.js';
import { OutboxModule } from './modules/outbox/outbox.module.js';
import { OutOfOfficeModule } from './modules/out-of-office/index.js';
import { OAuthModule } from './modules/oauth/index.js';
import { RoutingFormsModule } from './modules/routing-forms/index.js';
import { TeamModule } from './modules/team/team.module.js';
import { WebhookDeliveriesModule } from './modules/webhook-deliveries/index.js';
import { WebhooksModule } from './modules/webhooks/webhooks.module.js';

export interface AppModuleOptions {
  config: AppConfig;
  clock: Clock;
  /** Extra modules, for tests that need probe routes. */
  extraModules?: Type[];
}

@Module({})
export class AppModule {
  static register(options: AppModuleOptions): DynamicModule {
    return {
      module: AppModule,
      imports: [
        CoreModule.register(options.config, options.clock),
        MetricsModule,
        GlobalLookupsModule,
        HealthModule,
        OutboxModule,
        AuditModule,
        MailModule,
        AuthModule,
        ConsoleSessionModule,
        ApiKeysModule,
        TeamModule,
        EventTypesModule,
        AvailabilityModule,
        SchedulesModule,
        OutOfOfficeModule,
        RoutingFormsModule,
        EnterpriseIdentityModule,
        BookingsModule,
        CalendarFeedsModule,
        HoldsModule,
        BookingSeriesModule,
        BookingRemindersModule,
        PublicBookingModule,
        WebhooksModule,
        WebhookDeliveriesModule,
        CalendarsModule,
        CalendarWritesModule,
        ErasureModule,
        OAuthModule,
        ...(options.extraModules ?? []),
      ],
    };
  }
}
