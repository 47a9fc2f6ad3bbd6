import { Module } from '@nestjs/common';
import { BookingCoreModule } from '../booking-core/index.js';
import { RoutingFormsModule } from '../routing-forms/index.js';
import { SlotDecisionModule } from '../slot-decision/index.js';
import { HoldsController } from './holds.controller.js';
import { HoldsService } from './holds.service.js';

/**
 * Holds (api-rules.md § Browser booking): a time kept for an attendee while the form is filled in, decided by the
 * slot decision (slot-decision) and stored with the bookings' rows (booking-core's HoldRows); here are their routes
 * and their rules.
 */
@Module({
  imports: [BookingCoreModule, SlotDecisionModule, RoutingFormsModule],
  controllers: [HoldsController],
  providers: [HoldsService],
  exports: [HoldsService],
})
export class HoldsModule {}
