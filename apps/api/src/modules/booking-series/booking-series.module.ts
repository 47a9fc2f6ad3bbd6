import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { BookingCoreModule } from '../booking-core/index.js';
import { BookingEffectsModule } from '../booking-effects/index.js';
import { BookingRemindersModule } from '../booking-reminders/index.js';
import { HoldsModule } from '../holds/index.js';
import { SlotDecisionModule } from '../slot-decision/index.js';
import { BookingSeriesRepository } from './booking-series.repository.js';
import { BookingSeriesService } from './booking-series.service.js';
import { BookingSeries } from './entities/booking-series.entity.js';
import { SeriesController } from './series.controller.js';

/** Recurring series (api-rules.md § Seats and series): their rows, how one is made, and GET /series/:id. */
@Module({
  imports: [
    TypeOrmModule.forFeature([BookingSeries]),
    BookingCoreModule,
    BookingEffectsModule,
    BookingRemindersModule,
    HoldsModule,
    SlotDecisionModule,
  ],
  controllers: [SeriesController],
  providers: [BookingSeriesRepository, BookingSeriesService],
  exports: [BookingSeriesService],
})
export class BookingSeriesModule {}
