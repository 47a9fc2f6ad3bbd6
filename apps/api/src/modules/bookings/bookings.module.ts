import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { JobsModule } from '../../jobs/index.js';
import { AvailabilityModule } from '../availability/index.js';
import { BookingCoreModule } from '../booking-core/index.js';
import { BookingEffectsModule } from '../booking-effects/index.js';
import { BookingRemindersModule } from '../booking-reminders/index.js';
import { BookingSeriesModule } from '../booking-series/index.js';
import { EventTypesModule } from '../event-types/index.js';
import { HoldsModule } from '../holds/index.js';
import { RoutingFormsModule } from '../routing-forms/index.js';
import { SlotDecisionModule } from '../slot-decision/index.js';
import { TeamModule } from '../team/index.js';
import { BookingActors } from './booking-actors.service.js';
import { BookingChangesService } from './booking-changes.service.js';
import { BookingCreateService } from './booking-create.service.js';
import { BookingQueriesService } from './booking-queries.service.js';
import { BookingReassignService } from './booking-reassign.service.js';
import { BookingRescheduleService } from './booking-reschedule.service.js';
import { BookingsController } from './bookings.controller.js';
import { VisitorBooking } from './entities/visitor-booking.entity.js';
import { VisitorBookingsRepository } from './visitor-bookings.repository.js';
import { VisitorBookingsService } from './visitor-bookings.service.js';

/**
 * The /bookings routes: making a booking (one, through a hold, or a series), reading and changing bookings. They ask
 * the core for the slot decision and the rows, and the booking features (holds, series, reminders) for theirs.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([VisitorBooking]),
    BookingCoreModule,
    AvailabilityModule,
    BookingEffectsModule,
    HoldsModule,
    RoutingFormsModule,
    BookingRemindersModule,
    BookingSeriesModule,
    SlotDecisionModule,
    EventTypesModule,
    TeamModule,
    JobsModule,
  ],
  controllers: [BookingsController],
  providers: [
    BookingActors,
    BookingCreateService,
    BookingChangesService,
    BookingRescheduleService,
    BookingReassignService,
    BookingQueriesService,
    VisitorBookingsRepository,
    VisitorBookingsService,
  ],
  exports: [BookingCreateService, BookingQueriesService, VisitorBookingsService],
})
export class BookingsModule {}
