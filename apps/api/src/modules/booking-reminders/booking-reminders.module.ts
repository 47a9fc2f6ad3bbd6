import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { JobsModule } from '../../jobs/index.js';
import { BookingCoreModule } from '../booking-core/index.js';
import { BookingEffectsModule } from '../booking-effects/index.js';
import { EventTypesModule } from '../event-types/index.js';
import { BookingRemindersRepository } from './booking-reminders.repository.js';
import { BookingRemindersService } from './booking-reminders.service.js';
import { BookingReminder } from './entities/booking-reminder.entity.js';
import { ReminderQueueRepository } from './reminder-queue.repository.js';
import { ReminderSenderWorker } from './reminder-sender.worker.js';

/**
 * Reminders of bookings (api-rules.md § Reminders): the due rows, moved by whatever changes what is due, and the
 * sender that writes each reminder's event and mails when it falls due.
 */
@Module({
  imports: [TypeOrmModule.forFeature([BookingReminder]), BookingCoreModule, BookingEffectsModule, EventTypesModule, JobsModule],
  providers: [BookingRemindersRepository, BookingRemindersService, ReminderQueueRepository, ReminderSenderWorker],
  exports: [BookingRemindersService],
})
export class BookingRemindersModule {}
