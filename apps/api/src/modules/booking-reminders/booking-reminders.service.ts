import { Injectable, type OnModuleInit } from '@nestjs/common';
import { Clock, type TenantScope } from '@app/common';
import { EventTypesService } from '../event-types/index.js';
import { BookingRemindersRepository, type BookingReminderState } from './booking-reminders.repository.js';

/**
 * The due reminders of bookings (api-rules.md § Reminders): rows written and moved in the transactions that change
 * what is due, and read for `GET /bookings/:id`.
 */
@Injectable()
export class BookingRemindersService implements OnModuleInit {
  constructor(
    private readonly repository: BookingRemindersRepository,
    private readonly eventTypes: EventTypesService,
    private readonly clock: Clock,
  ) {}

  /** A new reminder list of an event type moves its bookings' due reminders, in the transaction that changed it. */
  onModuleInit(): void {
    this.eventTypes.onRemindersChanged((scope, eventTypeId, reminders) =>
      this.repository.followEventType(
        scope,
        eventTypeId,
        reminders.map((reminder) => reminder.minutesBefore),
        this.clock.now(),
      ),
    );
  }

  /**
   * Due rows for the reminders of bookings of one event type confirmed from now on (made, confirmed, a reschedule's
   * new booking, a series' occurrences). The list is read under the lock that a change of the list waits for
   * (lockedReminderListSql, event-types) in the statement that writes the rows: either that change sees these bookings
   * once this transaction commits and moves their rows, or this statement waits for it and takes the new list. A write
   * (tx.write): inside `batched()` it leaves with the booking's other writes, no round trip of its own.
   */
  async confirmed(scope: TenantScope, bookings: readonly { id: string; eventTypeId: string }[]): Promise<void> {
    if (bookings.length === 0) return;
    await this.repository.scheduleFor(
      scope,
      bookings[0].eventTypeId,
      bookings.map((booking) => booking.id),
      this.clock.now(),
    );
  }

  /** Bookings no longer confirmed (cancelled, declined, rescheduled away): their unsent reminders go. */
  async noLongerConfirmed(scope: TenantScope, bookingIds: readonly string[]): Promise<void> {
    await this.repository.dropUnsent(scope, bookingIds);
  }

  /** The booking's reminders, earliest due first. */
  of(scope: TenantScope, bookingId: string): Promise<BookingReminderState[]> {
    return this.repository.of(scope, bookingId);
  }
}
