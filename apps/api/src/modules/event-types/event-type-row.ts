import { EventType } from './entities/event-type.entity.js';

/** The hosts' user ids of the event type `et`, in order: the one subquery every reader of an EventTypeRow adds. */
export const HOST_USER_IDS_SQL = 'ARRAY(SELECT h.user_id FROM event_type_hosts h WHERE h.event_type_id = et.id ORDER BY h.position)';

/**
 * The whole row of the event type `et` with its hosts, as SQL columns (`SELECT … FROM event_types et`) or as one
 * JSON object: every column, so a new one reaches every reader (the repository and the slot read model) at once.
 */
export const EVENT_TYPE_ROW_COLUMNS_SQL = `et.*, ${HOST_USER_IDS_SQL} AS host_user_ids`;
export const EVENT_TYPE_ROW_JSON_SQL = `to_jsonb(et) || jsonb_build_object('host_user_ids', ${HOST_USER_IDS_SQL})`;

/** An event_types row as SQL returns it, with its hosts' user ids in order. */
export interface EventTypeRow {
  id: string;
  organization_id: string;
  title: string;
  slug: string;
  description: string | null;
  duration_minutes: number;
  location_type: EventType['locationType'];
  location: string | null;
  buffer_before_minutes: number;
  buffer_after_minutes: number;
  minimum_notice_hours: number;
  booking_window_days: number;
  max_bookings_per_day: number | null;
  slot_interval_minutes: number | null;
  scheduling_type: EventType['schedulingType'];
  requires_confirmation: boolean;
  hold_minutes: number;
  questions: EventType['questions'];
  seats_per_slot: number | null;
  recurrence: EventType['recurrence'];
  reminders: EventType['reminders'];
  attendee_cancellation: EventType['attendeeCancellation'];
  attendee_rescheduling: EventType['attendeeRescheduling'];
  is_active: boolean;
  created_at: Date;
  updated_at: Date;
  host_user_ids: string[];
}

/** The same row as EVENT_TYPE_ROW_JSON_SQL gives it (its instants as JSON strings). */
export type EventTypeJsonRow = Omit<EventTypeRow, 'created_at' | 'updated_at'> & { created_at: string; updated_at: string };

export function eventTypeRowFromJson(row: EventTypeJsonRow): EventTypeRow {
  return { ...row, created_at: new Date(row.created_at), updated_at: new Date(row.updated_at) };
}

export function eventTypeFromRow(row: EventTypeRow): EventType {
  return Object.assign(new EventType(), {
    id: row.id,
    organizationId: row.organization_id,
    title: row.title,
    slug: row.slug,
    description: row.description,
    durationMinutes: row.duration_minutes,
    locationType: row.location_type,
    location: row.location,
    bufferBeforeMinutes: row.buffer_before_minutes,
    bufferAfterMinutes: row.buffer_after_minutes,
    minimumNoticeHours: row.minimum_notice_hours,
    bookingWindowDays: row.booking_window_days,
    maxBookingsPerDay: row.max_bookings_per_day,
    slotIntervalMinutes: row.slot_interval_minutes,
    schedulingType: row.scheduling_type,
    requiresConfirmation: row.requires_confirmation,
    holdMinutes: row.hold_minutes,
    questions: row.questions,
    seatsPerSlot: row.seats_per_slot,
    recurrence: row.recurrence,
    reminders: row.reminders,
    attendeeCancellation: row.attendee_cancellation,
    attendeeRescheduling: row.attendee_rescheduling,
    isActive: row.is_active,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  } satisfies EventType);
}
