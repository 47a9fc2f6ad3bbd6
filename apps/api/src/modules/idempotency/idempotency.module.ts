import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { JobsModule } from '../../jobs/index.js';
import { IdempotencyKey } from './entities/idempotency-key.entity.js';
import { IdempotencyRepository } from './idempotency.repository.js';
import { IdempotencyService } from './idempotency.service.js';

/** Owns idempotency_keys: booking writes run through IdempotencyService, and its cleanup job runs wherever jobs run. */
@Module({
  imports: [TypeOrmModule.forFeature([IdempotencyKey]), JobsModule],
  providers: [IdempotencyRepository, IdempotencyService],
  exports: [IdempotencyService],
})
export class IdempotencyModule {}
