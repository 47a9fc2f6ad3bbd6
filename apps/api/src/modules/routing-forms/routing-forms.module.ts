import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { JobsModule } from '../../jobs/index.js';
import { EventTypesModule } from '../event-types/index.js';
import { RoutingForm } from './entities/routing-form.entity.js';
import { RoutingResponse } from './entities/routing-response.entity.js';
import { RoutedBookingsService } from './routed-bookings.service.js';
import { RoutedResponsesRepository } from './routed-responses.repository.js';
import { VisitorResponse } from './entities/visitor-response.entity.js';
import { PublicRoutingFormsController } from './public-routing-forms.controller.js';
import { RoutingFormsController } from './routing-forms.controller.js';
import { RoutingFormsRepository } from './routing-forms.repository.js';
import { RoutingFormsService } from './routing-forms.service.js';

/** Routing forms and their responses (contract § 22); the rules themselves are the pure routing-rules.ts. */
@Module({
  imports: [TypeOrmModule.forFeature([RoutingForm, RoutingResponse, VisitorResponse]), EventTypesModule, JobsModule],
  controllers: [RoutingFormsController, PublicRoutingFormsController],
  providers: [RoutingFormsRepository, RoutingFormsService, RoutedResponsesRepository, RoutedBookingsService],
  exports: [RoutingFormsService, RoutedBookingsService],
})
export class RoutingFormsModule {}
