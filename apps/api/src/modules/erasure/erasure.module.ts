import { Module } from '@nestjs/common';
import { ApiKeysModule } from '../api-keys/index.js';
import { BookingCoreModule } from '../booking-core/index.js';
import { BookingEffectsModule } from '../booking-effects/index.js';
import { BookingSeriesModule } from '../booking-series/index.js';
import { BookingsModule } from '../bookings/index.js';
import { IdempotencyModule } from '../idempotency/index.js';
import { MailModule } from '../mail/index.js';
import { RoutingFormsModule } from '../routing-forms/index.js';
import { ErasureController } from './erasure.controller.js';
import { ErasureService } from './erasure.service.js';

/** `POST /attendees/erase`: owns no table; asks each module that holds an attendee's data to erase its own rows. */
@Module({
  imports: [
    ApiKeysModule,
    BookingCoreModule,
    BookingEffectsModule,
    BookingSeriesModule,
    BookingsModule,
    IdempotencyModule,
    MailModule,
    RoutingFormsModule,
  ],
  controllers: [ErasureController],
  providers: [ErasureService],
  exports: [ErasureService],
})
export class ErasureModule {}
