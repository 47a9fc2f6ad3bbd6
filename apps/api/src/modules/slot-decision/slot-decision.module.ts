import { Module } from '@nestjs/common';
import { AvailabilityModule } from '../availability/index.js';
import { EventTypesModule } from '../event-types/index.js';
import { IdempotencyModule } from '../idempotency/index.js';
import { HostLocksRepository } from './host-locks.repository.js';
import { SlotDecisionService } from './slot-decision.service.js';

/**
 * The decision every write of a host's time shares (a booking, a reschedule, a reassignment, a series, a hold): the
 * host queue, the hosts' locks, the transaction and its one batch, the slot engine's verdict under the locks and the
 * exclusion constraint's refusal as 409. It writes no row; the callers write booking-core's rows inside it.
 */
@Module({
  imports: [AvailabilityModule, EventTypesModule, IdempotencyModule],
  providers: [HostLocksRepository, SlotDecisionService],
  exports: [SlotDecisionService],
})
export class SlotDecisionModule {}
