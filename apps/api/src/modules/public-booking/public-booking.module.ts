import { Module } from '@nestjs/common';
import { AvailabilityModule } from '../availability/index.js';
import { BookingsModule } from '../bookings/index.js';
import { EventTypesModule } from '../event-types/index.js';
import { HoldsModule } from '../holds/index.js';
import { TeamModule } from '../team/index.js';
import { PublicBookingController } from './public-booking.controller.js';
import { PublicBookingService } from './public-booking.service.js';

/** The routes of api-rules.md § Browser booking for publishable keys: an attendee's page books with no backend in between. */
@Module({
  imports: [BookingsModule, HoldsModule, EventTypesModule, AvailabilityModule, TeamModule],
  controllers: [PublicBookingController],
  providers: [PublicBookingService],
})
export class PublicBookingModule {}
