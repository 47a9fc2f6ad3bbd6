import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { BookingCountsModule } from '../booking-occupancy/index.js';
import { TeamModule } from '../team/index.js';
import { EventTypeHost } from './entities/event-type-host.entity.js';
import { EventType } from './entities/event-type.entity.js';
import { EventTypeHostsService } from './event-type-hosts.service.js';
import { EventTypesController } from './event-types.controller.js';
import { EventTypesRepository } from './event-types.repository.js';
import { EventTypesService } from './event-types.service.js';

@Module({
  imports: [TypeOrmModule.forFeature([EventType, EventTypeHost]), TeamModule, BookingCountsModule],
  controllers: [EventTypesController],
  providers: [EventTypesRepository, EventTypeHostsService, EventTypesService],
  exports: [EventTypesService],
})
export class EventTypesModule {}
