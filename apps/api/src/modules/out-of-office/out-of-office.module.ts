import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { BookingCountsModule } from '../booking-occupancy/index.js';
import { TeamModule } from '../team/index.js';
import { OutOfOfficeEntry } from './entities/out-of-office-entry.entity.js';
import { OutOfOfficeController } from './out-of-office.controller.js';
import { OutOfOfficeRepository } from './out-of-office.repository.js';
import { OutOfOfficeService } from './out-of-office.service.js';

/**
 * Out-of-office entries (contract § 17). The slot engine reads them through availability's SlotReadModel (one of the
 * read models of docs/contributing/architecture.md); this module writes them and lists the bookings they affect (booking-occupancy).
 */
@Module({
  imports: [TypeOrmModule.forFeature([OutOfOfficeEntry]), TeamModule, BookingCountsModule],
  controllers: [OutOfOfficeController],
  providers: [OutOfOfficeRepository, OutOfOfficeService],
  exports: [OutOfOfficeService],
})
export class OutOfOfficeModule {}
