import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { JobsModule } from '../../jobs/index.js';
import { AvailabilityModule } from '../availability/index.js';
import { BookingCoreModule } from '../booking-core/index.js';
import { CalendarsModule } from '../calendars/index.js';
import { EventTypesModule } from '../event-types/index.js';
import { MailModule } from '../mail/index.js';
import { TeamModule } from '../team/index.js';
import { BookingsController } from './bookings.controller.js';
import { BookingFeedsRepository } from './booking-feeds.repository.js';
import { BookingSeriesRepository } from './booking-series.repository.js';
import { BookingRemindersRepository } from './booking-reminders.repository.js';
import { ReminderQueueRepository } from './reminder-queue.repository.js';
import { ReminderSenderWorker } from './reminder-sender.worker.js';
import { BookingChangesService } from './booking-changes.service.js';
import { BookingCreateService } from './booking-create.service.js';
import { BookingEffectsService } from './booking-effects.service.js';
import { BookingQueriesService } from './booking-queries.service.js';
import { BookingFeeds } from './booking-feeds.service.js';
import { BookingFeedsController } from './booking-feeds.controller.js';
import { BookingFeed } from './entities/booking-feed.entity.js';
import { BookingReminder } from './entities/booking-reminder.entity.js';
import { BookingSeries } from './entities/booking-series.entity.js';
import { HoldsController } from './holds.controller.js';
import { HoldsService } from './holds.service.js';
import { SeriesController } from './series.controller.js';
import { VisitorBooking } from './entities/visitor-booking.entity.js';
import { VisitorBookingsRepository } from './visitor-bookings.repository.js';
import { VisitorBookingsService } from './visitor-bookings.service.js';

@Module({
  imports: [
    TypeOrmModule.forFeature([BookingFeed, BookingSeries, BookingReminder, VisitorBooking]),
    BookingCoreModule,
    AvailabilityModule,
    EventTypesModule,
    TeamModule,
    MailModule,
    CalendarsModule,
    JobsModule,
  ],
  controllers: [BookingsController, BookingFeedsController, HoldsController, SeriesController],
  providers: [
    BookingFeedsRepository,
    BookingSeriesRepository,
    BookingRemindersRepository,
    ReminderQueueRepository,
    ReminderSenderWorker,
    BookingCreateService,
    BookingChangesService,
    BookingQueriesService,
    BookingEffectsService,
    BookingFeeds,
    HoldsService,
    VisitorBookingsRepository,
    VisitorBookingsService,
  ],
  exports: [BookingCreateService, BookingQueriesService, HoldsService],
})
export class BookingsModule {}
