import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { BookingCoreModule } from '../booking-core/index.js';
import { EventTypesModule } from '../event-types/index.js';
import { CalendarFeedsController } from './calendar-feeds.controller.js';
import { CalendarFeedsRepository } from './calendar-feeds.repository.js';
import { CalendarFeedsService } from './calendar-feeds.service.js';
import { BookingFeed } from './entities/booking-feed.entity.js';

/** A member's outbound calendar feed (api-rules.md § Calendars): the bookings it hosts, for any calendar app. */
@Module({
  imports: [TypeOrmModule.forFeature([BookingFeed]), BookingCoreModule, EventTypesModule],
  controllers: [CalendarFeedsController],
  providers: [CalendarFeedsRepository, CalendarFeedsService],
})
export class CalendarFeedsModule {}
