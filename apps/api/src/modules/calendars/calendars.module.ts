import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CalendarSourcesModule } from '../calendar-sources/index.js';
import { SchedulesModule } from '../schedules/index.js';
import { JobsModule } from '../../jobs/index.js';
import { CalendarSecretReseal } from './calendar-secret-reseal.service.js';
import { CalendarSecrets } from './calendar-secrets.service.js';
import { CalendarSync } from './calendar-sync.service.js';
import { CalendarSyncWorker } from './calendar-sync.worker.js';
import { CalendarDestinations } from './calendar-destinations.service.js';
import { CalendarsController } from './calendars.controller.js';
import { CalendarQueueRepository } from './calendar-queue.repository.js';
import { CalendarsRepository } from './calendars.repository.js';
import { CalendarsService } from './calendars.service.js';
import { CalendarBusyTime } from './entities/calendar-busy-time.entity.js';
import { CalendarConnection } from './entities/calendar-connection.entity.js';

/** Owns calendar_connections and calendar_busy_times: hosts' own calendars and their busy times (api-rules.md § Calendars). */
@Module({
  imports: [TypeOrmModule.forFeature([CalendarConnection, CalendarBusyTime]), SchedulesModule, JobsModule, CalendarSourcesModule],
  controllers: [CalendarsController],
  providers: [
    CalendarsRepository,
    CalendarQueueRepository,
    CalendarSecrets,
    CalendarSecretReseal,
    CalendarSync,
    CalendarSyncWorker,
    CalendarDestinations,
    CalendarsService,
  ],
  exports: [CalendarDestinations],
})
export class CalendarsModule {}
