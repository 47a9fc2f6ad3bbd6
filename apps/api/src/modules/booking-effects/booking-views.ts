import { type ChangePolicies, changeDeadlines, type EventTypeSummary } from '../event-types/index.js';
import type { BookingDetailView, BookingView, CancelledBookingView, RescheduledBookingView } from './dto/booking-views.dto.js';
import type { BookingRecord } from '../booking-core/index.js';

/** "Ann Attendee", or null when the attendee gave no name. */
export function attendeeNameOf(booking: Pick<BookingRecord, 'attendeeFirstName' | 'attendeeLastName'>): string | null {
  return [booking.attendeeFirstName, booking.attendeeLastName].filter(Boolean).join(' ') || null;
}

function attendeeOf(booking: BookingRecord): BookingView['attendee'] {
  return {
    email: booking.attendeeEmail,
    firstName: booking.attendeeFirstName,
    lastName: booking.attendeeLastName,
    phone: booking.attendeePhone,
    locale: booking.attendeeLocale,
  };
}

/**
 * Entities never leave the service: these build the host's booking shapes (api-rules.md § Bookings). What an attendee's
 * token or a publishable key reaches is built by attendee-views.ts alone.
 */
export function bookingView(booking: BookingRecord, hostUserIds: readonly string[], policies: ChangePolicies): BookingView {
  return {
    id: booking.id,
    eventTypeId: booking.eventTypeId,
    hostUserId: booking.hostUserId,
    hostUserIds: [...hostUserIds],
    startsAt: booking.startsAt.toISOString(),
    endsAt: booking.endsAt.toISOString(),
    status: booking.status,
    attendee: attendeeOf(booking),
    timezone: booking.timezone,
    locationType: booking.locationType,
    location: booking.location,
    notes: booking.notes,
    metadata: booking.metadata ?? {},
    answers: booking.answers ?? [],
    createdAt: booking.createdAt.toISOString(),
    livemode: booking.livemode,
    seriesId: booking.seriesId,
    occurrence: booking.occurrence,
    noShow: { attendee: booking.noShowAttendee, host: booking.noShowHost },
    ...changeDeadlines(policies, booking.startsAt),
  };
}

/** The booking's location when it is a link. */
export function meetingUrlOf(location: string | null): string | null {
  return location && /^https?:\/\/\S+$/i.test(location) ? location : null;
}

/** The host's cancel answer (the attendee's is attendee-views.ts'). */
export function cancelledView(booking: BookingRecord): CancelledBookingView {
  return {
    id: booking.id,
    status: 'cancelled',
    cancelledAt: booking.cancelledAt!.toISOString(),
    cancellationReason: booking.cancellationReason,
    cancelledBy: booking.cancelledBy!,
  };
}

/** The host's reschedule answer: the new booking and its new token for the attendee. */
export function rescheduledView(replacement: BookingRecord, confirmationToken: string, policies: ChangePolicies): RescheduledBookingView {
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

export function bookingDetailView(booking: BookingRecord, hostUserIds: readonly string[], eventType: EventTypeSummary): BookingDetailView {
  return {
    ...bookingView(booking, hostUserIds, eventType),
    eventType: { id: eventType.id, title: eventType.title, slug: eventType.slug, durationMinutes: eventType.durationMinutes },
    meetingUrl: meetingUrlOf(booking.location),
    updatedAt: booking.updatedAt.toISOString(),
    cancelledAt: booking.cancelledAt?.toISOString() ?? null,
    cancellationReason: booking.cancellationReason,
    cancelledBy: booking.cancelledBy,
    previousBookingId: booking.previousBookingId,
    rescheduledToBookingId: booking.rescheduledToBookingId,
  };
}
