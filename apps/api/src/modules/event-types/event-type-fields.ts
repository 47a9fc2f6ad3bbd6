import type { SchedulingType } from '@app/availability';
import { AppError, ErrorCode, newId, type Principal } from '@app/common';
import { DEFAULT_CHANGE_POLICY, mergePolicy } from './change-policy.js';
import type { CreateEventTypeDto, UpdateEventTypeDto } from './dto/event-type.dto.js';
import { EventType, type Recurrence } from './entities/event-type.entity.js';
import { normalizeQuestions } from './questions.js';
import { normalizeReminders, type Reminder } from './reminders.js';

// An event type's fields as requests give them: the defaults, the normalized lists, and the rules between fields.

/** The PATCHable columns: everything the update DTO names except the hosts, which live in their own table. */
const UPDATABLE_FIELDS = [
  'title',
  'slug',
  'description',
  'durationMinutes',
  'locationType',
  'location',
  'bufferBeforeMinutes',
  'bufferAfterMinutes',
  'minimumNoticeHours',
  'bookingWindowDays',
  'maxBookingsPerDay',
  'slotIntervalMinutes',
  'schedulingType',
  'requiresConfirmation',
  'holdMinutes',
  'seatsPerSlot',
  'recurrence',
] as const satisfies readonly (keyof UpdateEventTypeDto & keyof EventType)[];

/** 409 SLUG_TAKEN: an active event type of the organization already has this slug. */
export function slugTaken(slug: string | undefined): AppError {
  return new AppError(ErrorCode.SLUG_TAKEN, 'An active event type of this organization already uses this slug', [
    { field: 'slug', message: `slug '${slug ?? ''}' is in use` },
  ]);
}

/** A one_on_one event type has exactly one host; the others at least one. */
export function assertHostCount(schedulingType: SchedulingType, hostUserIds: readonly string[]): void {
  if (schedulingType === 'one_on_one' && hostUserIds.length !== 1) {
    throw AppError.validation('hostUserIds', 'one_on_one event types take exactly one host');
  }
  if (hostUserIds.length === 0) throw AppError.validation('hostUserIds', `${schedulingType} event types need at least one host`);
}

/** A reminder list's times, as its due rows know them (stored lists are sorted already). */
export function minutesOf(reminders: readonly Reminder[]): number[] {
  return reminders.map((reminder) => reminder.minutesBefore);
}

/** The rule as stored: exactly its three fields (the DTO may carry no others, but its class is not the column's). */
function recurrenceOf(dto: Recurrence | null | undefined): Recurrence | null {
  return dto ? { frequency: dto.frequency, interval: dto.interval, maxCount: dto.maxCount } : null;
}

/** Seats and recurrence exclude each other (api-rules.md § Seats and series). */
export function assertSeatsOrRecurrence(eventType: Pick<EventType, 'seatsPerSlot' | 'recurrence'>): void {
  if (eventType.seatsPerSlot !== null && eventType.recurrence !== null) {
    throw AppError.validation('seatsPerSlot', 'seatsPerSlot cannot be set together with recurrence');
  }
}

/** A new event type from a create request, its defaults written out (its hosts are checked and stored apart). */
export function newEventType(principal: Principal, dto: CreateEventTypeDto, schedulingType: SchedulingType, now: Date): EventType {
  return Object.assign(new EventType(), {
    id: newId('evt'),
    organizationId: principal.organizationId,
    title: dto.title,
    slug: dto.slug,
    description: dto.description ?? null,
    durationMinutes: dto.durationMinutes,
    locationType: dto.locationType ?? null,
    location: dto.location ?? null,
    bufferBeforeMinutes: dto.bufferBeforeMinutes ?? 0,
    bufferAfterMinutes: dto.bufferAfterMinutes ?? 0,
    minimumNoticeHours: dto.minimumNoticeHours ?? 0,
    bookingWindowDays: dto.bookingWindowDays ?? 60,
    maxBookingsPerDay: dto.maxBookingsPerDay ?? null,
    slotIntervalMinutes: dto.slotIntervalMinutes ?? null,
    schedulingType,
    requiresConfirmation: dto.requiresConfirmation ?? false,
    holdMinutes: dto.holdMinutes ?? 10,
    questions: normalizeQuestions(dto.questions ?? []),
    seatsPerSlot: dto.seatsPerSlot ?? null,
    recurrence: recurrenceOf(dto.recurrence),
    reminders: normalizeReminders(dto.reminders ?? []),
    attendeeCancellation: mergePolicy(DEFAULT_CHANGE_POLICY, dto.attendeeCancellation),
    attendeeRescheduling: mergePolicy(DEFAULT_CHANGE_POLICY, dto.attendeeRescheduling),
    isActive: true,
    createdAt: now,
    updatedAt: now,
  } satisfies EventType);
}

/** The columns an update request changes, normalized, its attendee policies merged into the current ones. */
export function changesOf(current: EventType, dto: UpdateEventTypeDto): Partial<EventType> {
  const changes: Partial<EventType> = {};
  for (const field of UPDATABLE_FIELDS) {
    if (dto[field] !== undefined) Object.assign(changes, { [field]: dto[field] });
  }
  if (dto.questions !== undefined) changes.questions = normalizeQuestions(dto.questions);
  if (dto.reminders !== undefined) changes.reminders = normalizeReminders(dto.reminders);
  if (dto.recurrence !== undefined) changes.recurrence = recurrenceOf(dto.recurrence);
  if (dto.attendeeCancellation !== undefined)
    changes.attendeeCancellation = mergePolicy(current.attendeeCancellation, dto.attendeeCancellation);
  if (dto.attendeeRescheduling !== undefined)
    changes.attendeeRescheduling = mergePolicy(current.attendeeRescheduling, dto.attendeeRescheduling);
  return changes;
}
