import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EventTypesModule } from '../event-types/index.js';
import { RoutingFormsModule } from '../routing-forms/index.js';
import { AvailabilityCache } from './availability-cache.service.js';
import { AvailabilityController } from './availability.controller.js';
import { SlotReadModel } from './slot.read-model.js';
import { AvailabilityService } from './availability.service.js';
import { AvailabilityVersion } from './entities/availability-version.entity.js';

/**
 * Slots: GET /availability and /availability/check, and AvailabilityService.loadSlotQuery for the slot decision, read
 * by SlotReadModel from the hosts' schedules and overrides (the schedules module's tables), bookings, calendars and
 * absences, and cached by AvailabilityCache under the versions of availability_versions (owned here, written by triggers).
 */
@Module({
  imports: [TypeOrmModule.forFeature([AvailabilityVersion]), EventTypesModule, RoutingFormsModule],
  controllers: [AvailabilityController],
  providers: [SlotReadModel, AvailabilityCache, AvailabilityService],
  exports: [AvailabilityService],
})
export class AvailabilityModule {}
