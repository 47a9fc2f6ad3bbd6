import { meetingUrlOf } from './booking-views.js';
import type { AttendeeBookingView, CancelledBookingView, RescheduledBookingView } from './dto/booking-views.dto.js';
import type { BookingRecord } from '../booking-core/index.js';
import { type ChangePolicies, changeDeadlines } from '../event-types/index.js';

/**
 * The attendee's audience (STYLE habit 19; api-rules.md § Browser booking): every answer a publishable key or an attendee's
 * token reaches is built here, never by the host's mappers (booking-views.ts), so no route can hand an attendee the
 * backend's notes or metadata, host ids or another attendee's booking by accident. At most what
 * `GET /public/bookings/:id` shows; the reschedule answer keeps its documented fields.
 */

/** The attendee's own booking; `confirmationToken` only in the answer that creates it. */
export function attendeeBookingView(booking: BookingRecord, policies: ChangePolicies, confirmationToken?: string): AttendeeBookingView {
  return {
    id: booking.id,
    eventTypeId: booking.eventTypeId,
    startsAt: booking.startsAt.toISOString(),
    endsAt: booking.endsAt.toISOString(),
    status: booking.status,
    ...(confirmationToken !== undefined ? { confirmationToken } : {}),
    attendee: {
      email: booking.attendeeEmail,
      firstName: booking.attendeeFirstName,
      lastName: booking.attendeeLastName,
      phone: booking.attendeePhone,
      locale: booking.attendeeLocale,
    },
    timezone: booking.timezone,
    locationType: booking.locationType,
    location: booking.location,
    meetingUrl: meetingUrlOf(booking.location),
    answers: booking.answers ?? [],
    livemode: booking.livemode,
    ...changeDeadlines(policies, booking.startsAt),
  };
}

/** What a cancel with the attendee's token answers (cancelled by now). */
export function attendeeCancelledView(booking: BookingRecord): CancelledBookingView {
  return {
    id: booking.id,
    status: 'cancelled',
    cancelledAt: booking.cancelledAt!.toISOString(),
    cancellationReason: booking.cancellationReason,
    cancelledBy: booking.cancelledBy!,
  };
}

/** What a reschedule with the attendee's token answers: the new booking and its new token. */
export function attendeeRescheduledView(
  replacement: BookingRecord,
  confirmationToken: string,
  policies: ChangePolicies,
): RescheduledBookingView {
  return {
    id: replacement.id,
    previousBookingId: replacement.previousBookingId!,
    startsAt: replacement.startsAt.toISOString(),
    endsAt: replacement.endsAt.toISOString(),
    status: replacement.status,
    hostUserId: replacement.hostUserId,
    confirmationToken,
    ...changeDeadlines(policies, replacement.startsAt),
  };
}
