import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AvailabilityModule } from '../availability/availability.module.js';
import { MailModule } from '../mail/index.js';
import { TeamModule } from '../team/team.module.js';
import { BookingsController } from './bookings.controller.js';
import { BookingsRepository } from './bookings.repository.js';
import { BookingsService } from './bookings.service.js';
import { BookingHost } from './entities/booking-host.entity.js';
import { Booking } from './entities/booking.entity.js';
import { IdempotencyKey } from './entities/idempotency-key.entity.js';
import { IdempotencyRepository } from './idempotency/idempotency.repository.js';
import { IdempotencyService } from './idempotency/idempotency.service.js';

@Module({
  imports: [TypeOrmModule.forFeature([Booking, BookingHost, IdempotencyKey]), AvailabilityModule, TeamModule, MailModule],
  controllers: [BookingsController],
  providers: [BookingsRepository, BookingsService, IdempotencyRepository, IdempotencyService],
})
export class BookingsModule {}
