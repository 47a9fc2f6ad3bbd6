import { Module } from '@nestjs/common';
import { SchedulesModule } from '../schedules/index.js';
import { CalendarWritesModule } from '../calendar-writes/index.js';
import { EventTypesModule } from '../event-types/index.js';
import { MailModule } from '../mail/index.js';
import { TeamModule } from '../team/index.js';
import { BookingEffectsService } from './booking-effects.service.js';

/** What every change of a booking causes beyond its rows, recorded in the caller's transaction; and the booking's views. */
@Module({
  imports: [EventTypesModule, TeamModule, MailModule, CalendarWritesModule, SchedulesModule],
  providers: [BookingEffectsService],
  exports: [BookingEffectsService],
})
export class BookingEffectsModule {}
