import { Injectable } from '@nestjs/common';
import ical, { ICalEventStatus } from 'ical-generator';
import { newId, type TenantScope } from '@app/common';
import { TransactionHost } from '@app/database';
import type { CalendarWriteAction } from './entities/calendar-write.entity.js';

export const CALENDAR_WRITES_CHANNEL = 'calendar_writes';

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
 * The calendars module's answer to "this booking is now confirmed / gone": records, in the caller's
 * transaction, one write per host for the `calendar-write-back` job. Test-mode bookings are never written.
 */
@Injectable()
export class CalendarWriteBack {
  constructor(private readonly tx: TransactionHost) {}

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

  /** One write per booking and host. */
  private async record(
    scope: TenantScope,
    items: readonly { bookingId: string; ics: string | null }[],
    hostUserIds: readonly string[],
    action: CalendarWriteAction,
  ): Promise<void> {
    if (!scope.livemode || hostUserIds.length === 0 || items.length === 0) return;
    const writes = items.flatMap((item) => hostUserIds.map((userId) => ({ ...item, userId, id: newId('calw') })));
    await this.tx.write(
      `WITH inserted AS (
         INSERT INTO calendar_writes (id, organization_id, booking_id, user_id, action, ics, status, attempts, next_attempt_at, created_at)
         SELECT w.id, $1, w.booking_id, w.user_id, $2, w.ics, 'pending', 0, now(), now()
           FROM unnest($3::text[], $4::text[], $5::text[], $6::text[]) AS w(id, booking_id, user_id, ics)
         RETURNING id)
       SELECT pg_notify('${CALENDAR_WRITES_CHANNEL}', '') FROM inserted LIMIT 1`,
      [
        scope.organizationId,
        action,
        writes.map((write) => write.id),
        writes.map((write) => write.bookingId),
        writes.map((write) => write.userId),
        writes.map((write) => write.ics),
      ],
    );
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
