import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { JobsModule } from '../../jobs/index.js';
import { DomainEventsRepository } from './domain-events.repository.js';
import { DomainEvents } from './domain-events.service.js';
import { DomainEvent } from './entities/domain-event.entity.js';

/** Global: every feature records its domain events through the same writer. */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([DomainEvent]), JobsModule],
  providers: [DomainEventsRepository, DomainEvents],
  exports: [DomainEvents],
})
export class OutboxModule {}
