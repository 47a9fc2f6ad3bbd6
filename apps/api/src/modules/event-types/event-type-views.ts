import { AppError, ErrorCode } from '@app/common';
import type { EventTypeView } from './dto/event-type.dto.js';
import type { EventType } from './entities/event-type.entity.js';
import { type EventTypeRow, eventTypeFromRow } from './event-type-row.js';
import type { ChangePolicy } from './change-policy.js';
import type { Reminder } from './reminders.js';

// How an event type is shown: to its routes (`view`), to other modules (`details`) and to bookings (`summariesOf`).

/** An event type as other modules see it (availability, bookings): every field but the bookings count. */
export type EventTypeDetails = Omit<EventTypeView, 'bookingsCount'>;

/** What a booking shows of its event type, deleted event types included. */
export interface EventTypeSummary {
  id: string;
  title: string;
  slug: string;
  durationMinutes: number;
  location: string | null;
  /** The reminders in force (api-rules.md § Reminders). */
  reminders: Reminder[];
  /** The attendee change policies in force (contract § 17). */
  attendeeCancellation: ChangePolicy;
  attendeeRescheduling: ChangePolicy;
}

/** An event type with its hosts, as other modules see it. */
export function details(eventType: EventType, hostUserIds: readonly string[]): EventTypeDetails {
  return {
    id: eventType.id,
    title: eventType.title,
    slug: eventType.slug,
    description: eventType.description,
    durationMinutes: eventType.durationMinutes,
    locationType: eventType.locationType,
    location: eventType.location,
    bufferBeforeMinutes: eventType.bufferBeforeMinutes,
    bufferAfterMinutes: eventType.bufferAfterMinutes,
    minimumNoticeHours: eventType.minimumNoticeHours,
    bookingWindowDays: eventType.bookingWindowDays,
    maxBookingsPerDay: eventType.maxBookingsPerDay,
    slotIntervalMinutes: eventType.slotIntervalMinutes,
    schedulingType: eventType.schedulingType,
    hostUserIds: [...hostUserIds],
    requiresConfirmation: eventType.requiresConfirmation,
    holdMinutes: eventType.holdMinutes,
    questions: eventType.questions,
    seatsPerSlot: eventType.seatsPerSlot,
    recurrence: eventType.recurrence,
    reminders: eventType.reminders,
    attendeeCancellation: eventType.attendeeCancellation,
    attendeeRescheduling: eventType.attendeeRescheduling,
    isActive: eventType.isActive,
    createdAt: eventType.createdAt.toISOString(),
    updatedAt: eventType.updatedAt.toISOString(),
  };
}

/** An event type as its routes answer it, with its bookings count. */
export function view(eventType: EventType, hostUserIds: readonly string[], bookingsCount: number): EventTypeView {
  const { createdAt, updatedAt, ...rest } = details(eventType, hostUserIds);
  return { ...rest, bookingsCount, createdAt, updatedAt };
}

/** What getForScheduling answers, from a row a read model selected (availability's cache fingerprint): 404 when there is none, 409 when deleted. */
export function schedulingDetailsOf(row: EventTypeRow | null): EventTypeDetails {
  if (!row) throw AppError.notFound('Event type');
  if (!row.is_active) throw inactive();
  return details(eventTypeFromRow(row), row.host_user_ids);
}

/** Summaries of these event types, by id. */
export function summariesOf(eventTypes: readonly EventType[]): Map<string, EventTypeSummary> {
  return new Map(
    eventTypes.map((e) => [
      e.id,
      {
        id: e.id,
        title: e.title,
        slug: e.slug,
        durationMinutes: e.durationMinutes,
        location: e.location,
        reminders: e.reminders,
        attendeeCancellation: e.attendeeCancellation,
        attendeeRescheduling: e.attendeeRescheduling,
      },
    ]),
  );
}

export function inactive(): AppError {
  return new AppError(ErrorCode.EVENT_TYPE_INACTIVE, 'This event type has been deleted');
}
