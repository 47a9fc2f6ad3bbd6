import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { JobsModule } from '../../jobs/index.js';
import { BookingCoreModule } from '../booking-core/index.js';
import { BookingEffectsModule } from '../booking-effects/index.js';
import { EventTypesModule } from '../event-types/index.js';
import { HoldsModule } from '../holds/index.js';
import { BookingsController } from './bookings.controller.js';
import { BookingSeriesRepository } from './booking-series.repository.js';
import { BookingRemindersRepository } from './booking-reminders.repository.js';
import { BookingRemindersService } from './booking-reminders.service.js';
import { ReminderQueueRepository } from './reminder-queue.repository.js';
import { ReminderSenderWorker } from './reminder-sender.worker.js';
import { BookingChangesService } from './booking-changes.service.js';
import { BookingCreateService } from './booking-create.service.js';
import { BookingQueriesService } from './booking-queries.service.js';
import { BookingReminder } from './entities/booking-reminder.entity.js';
import { BookingSeries } from './entities/booking-series.entity.js';
import { SeriesController } from './series.controller.js';
import { VisitorBooking } from './entities/visitor-booking.entity.js';
import { VisitorBookingsRepository } from './visitor-bookings.repository.js';
import { VisitorBookingsService } from './visitor-bookings.service.js';

@Module({
  imports: [
    TypeOrmModule.forFeature([BookingSeries, BookingReminder, VisitorBooking]),
    BookingCoreModule,
    BookingEffectsModule,
    HoldsModule,
    EventTypesModule,
    JobsModule,
  ],
  controllers: [BookingsController, SeriesController],
  providers: [
    BookingSeriesRepository,
    BookingRemindersRepository,
    BookingRemindersService,
    ReminderQueueRepository,
    ReminderSenderWorker,
    BookingCreateService,
    BookingChangesService,
    BookingQueriesService,
    VisitorBookingsRepository,
    VisitorBookingsService,
  ],
  exports: [BookingCreateService, BookingQueriesService],
})
export class BookingsModule {}
