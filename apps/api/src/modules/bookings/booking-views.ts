import type { EventTypeSummary } from '../event-types/index.js';
import type { AttendeeBookingView, BookingDetailView, BookingView } from './dto/booking.dto.js';
import type { Booking } from './entities/booking.entity.js';

/** "Ann Attendee", or null when the attendee gave no name. */
export function attendeeNameOf(booking: Pick<Booking, 'attendeeFirstName' | 'attendeeLastName'>): string | null {
  return [booking.attendeeFirstName, booking.attendeeLastName].filter(Boolean).join(' ') || null;
}

function attendeeOf(booking: Booking): BookingView['attendee'] {
  return {
    email: booking.attendeeEmail,
    firstName: booking.attendeeFirstName,
    lastName: booking.attendeeLastName,
    phone: booking.attendeePhone,
  };
}

/** Entities never leave the service: these build the API's booking shapes (api-rules.md § Bookings). */
export function bookingView(booking: Booking, hostUserIds: readonly string[]): BookingView {
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
  };
}

function meetingUrlOf(location: string | null): string | null {
  return location && /^https?:\/\/\S+$/i.test(location) ? location : null;
}

/**
 * What an attendee sees of a booking (api-rules.md § Browser booking): no host ids, no notes or metadata of the host's, no
 * other booking. `confirmationToken` only in the answer that creates it.
 */
export function attendeeBookingView(booking: Booking, confirmationToken?: string): AttendeeBookingView {
  return {
    id: booking.id,
    eventTypeId: booking.eventTypeId,
    startsAt: booking.startsAt.toISOString(),
    endsAt: booking.endsAt.toISOString(),
    status: booking.status,
    ...(confirmationToken !== undefined ? { confirmationToken } : {}),
    attendee: attendeeOf(booking),
    timezone: booking.timezone,
    locationType: booking.locationType,
    location: booking.location,
    meetingUrl: meetingUrlOf(booking.location),
    answers: booking.answers ?? [],
    livemode: booking.livemode,
  };
}

export function bookingDetailView(booking: Booking, hostUserIds: readonly string[], eventType: EventTypeSummary): BookingDetailView {
  return {
    ...bookingView(booking, hostUserIds),
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
