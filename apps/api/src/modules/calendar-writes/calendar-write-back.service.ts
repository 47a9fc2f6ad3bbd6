import { Injectable } from '@nestjs/common';
import ical, { ICalEventStatus } from 'ical-generator';
import { newId, type TenantScope } from '@app/common';
import { CalendarWritesRepository } from './calendar-writes.repository.js';
import type { CalendarWriteAction } from './entities/calendar-write.entity.js';

/** What a host's calendar shows of a booking. */
export interface BookingForCalendar {
  id: string;
  startsAt: Date;
  endsAt: Date;
  title: string;
  location: string | null;
  attendeeEmail: string;
  attendeeName: string | null;
}

/**
 * The calendar write-back's answer to "this booking is now confirmed / gone": records, in the caller's
 * transaction, one write per host for the `calendar-write-back` job. Test-mode bookings are never written.
 */
@Injectable()
export class CalendarWriteBack {
  constructor(private readonly queue: CalendarWritesRepository) {}

  async confirmed(scope: TenantScope, booking: BookingForCalendar, hostUserIds: readonly string[]): Promise<void> {
    await this.confirmedMany(scope, [booking], hostUserIds);
  }

  /** Several bookings with the same hosts (the occurrences of a series), in one statement. */
  async confirmedMany(scope: TenantScope, bookings: readonly BookingForCalendar[], hostUserIds: readonly string[]): Promise<void> {
    await this.record(
      scope,
      bookings.map((booking) => ({ bookingId: booking.id, ics: icsOf(booking) })),
      hostUserIds,
      'put',
    );
  }

  async removed(scope: TenantScope, bookingId: string, hostUserIds: readonly string[]): Promise<void> {
    await this.record(scope, [{ bookingId, ics: null }], hostUserIds, 'delete');
  }

  /**
   * An erased attendee's bookings (contract § 18): the bodies of their write-backs go (a queued PUT keeps its place
   * without one, a finished one keeps no body), and where a host's calendar has the booking, or was about to get it, a
   * PUT of the erased booking is queued after them, so the host's calendar no longer names the attendee either: it is
   * carried out after any write still in flight (CalendarWritesRepository's order). A booking whose last write was a
   * DELETE stays off the calendar.
   */
  async erased(scope: TenantScope, bookings: readonly BookingForCalendar[]): Promise<void> {
    if (!scope.livemode || bookings.length === 0) return;
    const onCalendars = await this.queue.eraseBodies(
      scope,
      bookings.map((booking) => booking.id),
    );
    const byId = new Map(bookings.map((booking) => [booking.id, booking]));
    const writes = onCalendars.map(({ bookingId, userId }) => ({ id: newId('calw'), bookingId, userId, ics: icsOf(byId.get(bookingId)!) }));
    if (writes.length > 0) await this.queue.recordWrites(scope, writes, 'put');
  }

  /** One write per booking and host. */
  private async record(
    scope: TenantScope,
    items: readonly { bookingId: string; ics: string | null }[],
    hostUserIds: readonly string[],
    action: CalendarWriteAction,
  ): Promise<void> {
    if (!scope.livemode || hostUserIds.length === 0 || items.length === 0) return;
    const writes = items.flatMap((item) => hostUserIds.map((userId) => ({ ...item, userId, id: newId('calw') })));
    await this.queue.recordWrites(scope, writes, action);
  }
}

function icsOf(booking: BookingForCalendar): string {
  const calendar = ical({ prodId: { company: 'scheduling-api', product: 'write-back' } });
  calendar.createEvent({
    id: booking.id,
    start: booking.startsAt,
    end: booking.endsAt,
    stamp: booking.startsAt,
    summary: booking.attendeeName ? `${booking.title} with ${booking.attendeeName}` : booking.title,
    location: booking.location ?? undefined,
    status: ICalEventStatus.CONFIRMED,
    attendees: [{ email: booking.attendeeEmail, name: booking.attendeeName ?? undefined }],
  });
  return calendar.toString();
}
