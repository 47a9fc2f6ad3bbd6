import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { JobsModule } from '../../jobs/index.js';
import { BookingCountsRepository } from './booking-counts.repository.js';
import { BookingReadsRepository } from './booking-reads.repository.js';
import { BookingRows } from './booking-rows.service.js';
import { BookingsRepository } from './bookings.repository.js';
import { BookingCountDelta } from './entities/booking-count-delta.entity.js';
import { BookingHost } from './entities/booking-host.entity.js';
import { Booking } from './entities/booking.entity.js';
import { Hold } from './entities/hold.entity.js';
import { HoldRows } from './hold-rows.service.js';
import { HoldsRepository } from './holds.repository.js';

/**
 * The booking rows (bookings, each host's occupancy, holds); the booking features (bookings, holds, series, reminders,
 * feeds) build on it, writing them inside the slot decision (slot-decision).
 */
@Module({
  imports: [TypeOrmModule.forFeature([Booking, BookingHost, Hold, BookingCountDelta]), JobsModule],
  providers: [BookingsRepository, BookingReadsRepository, BookingCountsRepository, HoldsRepository, BookingRows, HoldRows],
  exports: [BookingRows, HoldRows],
})
export class BookingCoreModule {}
