import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { JobsModule } from '../../jobs/index.js';
import { AvailabilityModule } from '../availability/index.js';
import { EventTypesModule } from '../event-types/index.js';
import { IdempotencyModule } from '../idempotency/index.js';
import { BookingRows } from './booking-rows.service.js';
import { BookingsRepository } from './bookings.repository.js';
import { BookingHost } from './entities/booking-host.entity.js';
import { Booking } from './entities/booking.entity.js';
import { Hold } from './entities/hold.entity.js';
import { HoldRows } from './hold-rows.service.js';
import { HoldsRepository } from './holds.repository.js';
import { SlotDecisionService } from './slot-decision.service.js';

/** The booking rows and the slot decision they share; the booking features (bookings, holds, series, reminders, feeds) build on it. */
@Module({
  imports: [TypeOrmModule.forFeature([Booking, BookingHost, Hold]), AvailabilityModule, EventTypesModule, IdempotencyModule, JobsModule],
  providers: [BookingsRepository, HoldsRepository, BookingRows, HoldRows, SlotDecisionService],
  exports: [BookingRows, HoldRows, SlotDecisionService],
})
export class BookingCoreModule {}
