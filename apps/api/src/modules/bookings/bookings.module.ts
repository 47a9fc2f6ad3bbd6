import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { JobsModule } from '../../jobs/index.js';
import { BookingCoreModule } from '../booking-core/index.js';
import { BookingEffectsModule } from '../booking-effects/index.js';
import { BookingRemindersModule } from '../booking-reminders/index.js';
import { BookingSeriesModule } from '../booking-series/index.js';
import { EventTypesModule } from '../event-types/index.js';
import { HoldsModule } from '../holds/index.js';
import { BookingsController } from './bookings.controller.js';
import { BookingChangesService } from './booking-changes.service.js';
import { BookingCreateService } from './booking-create.service.js';
import { BookingQueriesService } from './booking-queries.service.js';
import { VisitorBooking } from './entities/visitor-booking.entity.js';
import { VisitorBookingsRepository } from './visitor-bookings.repository.js';
import { VisitorBookingsService } from './visitor-bookings.service.js';

@Module({
  imports: [
    TypeOrmModule.forFeature([VisitorBooking]),
    BookingCoreModule,
    BookingEffectsModule,
    HoldsModule,
    BookingRemindersModule,
    BookingSeriesModule,
    EventTypesModule,
    JobsModule,
  ],
  controllers: [BookingsController],
  providers: [BookingCreateService, BookingChangesService, BookingQueriesService, VisitorBookingsRepository, VisitorBookingsService],
  exports: [BookingCreateService, BookingQueriesService],
})
export class BookingsModule {}
