import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { JobsModule } from '../../jobs/index.js';
import { CalendarsModule } from '../calendars/index.js';
import { CalendarWriteBack } from './calendar-write-back.service.js';
import { CalendarWriteBackWorker } from './calendar-write-back.worker.js';
import { CalendarWritesRepository } from './calendar-writes.repository.js';
import { CalendarWrite } from './entities/calendar-write.entity.js';

/**
 * Owns calendar_writes: bookings written back to hosts' destination calendars (api-rules.md § Calendars), recorded by
 * booking-effects through CalendarWriteBack and carried out by the `calendar-write-back` job (it runs when
 * AppConfig.runWorkers); where to write, and with which account, it asks calendars (CalendarDestinations).
 */
@Module({
  imports: [TypeOrmModule.forFeature([CalendarWrite]), CalendarsModule, JobsModule],
  providers: [CalendarWritesRepository, CalendarWriteBack, CalendarWriteBackWorker],
  exports: [CalendarWriteBack],
})
export class CalendarWritesModule {}
