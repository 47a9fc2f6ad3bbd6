import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { TeamModule } from '../team/index.js';
import { DateOverrideEntity } from './entities/date-override.entity.js';
import { WeeklyScheduleEntity } from './entities/weekly-schedule.entity.js';
import { SchedulesController } from './schedules.controller.js';
import { SchedulesRepository } from './schedules.repository.js';
import { SchedulesService } from './schedules.service.js';

/**
 * The members' weekly schedules and date overrides (weekly_schedules, date_overrides) and their routes. Exports
 * SchedulesService: createDefaultSchedule for registration and invitation acceptance, the members' zones for mail,
 * calendars and reminders. A change here moves the availability cache's versions by itself (the tables' triggers,
 * migration AvailabilityVersions), so this module asks nothing of availability; it imports no module that imports it
 * (AuthModule imports this one).
 */
@Module({
  imports: [TypeOrmModule.forFeature([WeeklyScheduleEntity, DateOverrideEntity]), TeamModule],
  controllers: [SchedulesController],
  providers: [SchedulesRepository, SchedulesService],
  exports: [SchedulesService],
})
export class SchedulesModule {}
