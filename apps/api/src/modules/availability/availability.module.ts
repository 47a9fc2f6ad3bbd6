import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EventTypesModule } from '../event-types/index.js';
import { TeamModule } from '../team/index.js';
import { AvailabilityCache } from './availability-cache.service.js';
import { AvailabilityController } from './availability.controller.js';
import { AvailabilityRepository } from './availability.repository.js';
import { SlotReadModel } from './slot.read-model.js';
import { AvailabilityService } from './availability.service.js';
import { AvailabilityVersion } from './entities/availability-version.entity.js';
import { DateOverrideEntity } from './entities/date-override.entity.js';
import { WeeklyScheduleEntity } from './entities/weekly-schedule.entity.js';
import { SchedulesController } from './schedules.controller.js';
import { SchedulesService } from './schedules.service.js';

/**
 * Schedules, overrides and slots. Exports AvailabilityService.loadSlotQuery for bookings and
 * SchedulesService.createDefaultSchedule for registration and invitation acceptance; it imports
 * no module that imports it (AuthModule imports this one).
 */
@Module({
  imports: [TypeOrmModule.forFeature([WeeklyScheduleEntity, DateOverrideEntity, AvailabilityVersion]), TeamModule, EventTypesModule],
  controllers: [AvailabilityController, SchedulesController],
  providers: [AvailabilityRepository, SlotReadModel, AvailabilityCache, AvailabilityService, SchedulesService],
  exports: [AvailabilityService, SchedulesService],
})
export class AvailabilityModule {}
