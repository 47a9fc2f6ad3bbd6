import { Module } from '@nestjs/common';
import { BookingCoreModule } from '../booking-core/index.js';
import { HoldsController } from './holds.controller.js';
import { HoldsService } from './holds.service.js';

/**
 * Holds (api-rules.md § Browser booking): a time kept for an attendee while the form is filled in, decided by the
 * core's slot decision and stored with the bookings' rows (HoldRows); here are their routes and their rules.
 */
@Module({
  imports: [BookingCoreModule],
  controllers: [HoldsController],
  providers: [HoldsService],
  exports: [HoldsService],
})
export class HoldsModule {}
