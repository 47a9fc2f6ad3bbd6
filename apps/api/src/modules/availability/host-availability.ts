import { countByLocalDate, type DateOverride, type EventTypeRules, type HostAvailability } from '@app/availability';
import type { EventTypeDetails } from '../event-types/index.js';
import type { BusyRow, HostData, HostLimitRow, HostOverride, HostSchedule } from './slot.read-model.js';

// From the slot read model's rows to the slot engine's input (libs/availability): plain functions, no I/O.

/** The slot engine's rules of an event type. */
export function rulesOf(eventType: EventTypeDetails): EventTypeRules {
  return {
    durationMinutes: eventType.durationMinutes,
    slotIntervalMinutes: eventType.slotIntervalMinutes,
    bufferBeforeMinutes: eventType.bufferBeforeMinutes,
    bufferAfterMinutes: eventType.bufferAfterMinutes,
    minimumNoticeHours: eventType.minimumNoticeHours,
    bookingWindowDays: eventType.bookingWindowDays,
    maxBookingsPerDay: eventType.maxBookingsPerDay,
    schedulingType: eventType.schedulingType,
    hostUserIds: eventType.hostUserIds,
    seatsPerSlot: eventType.seatsPerSlot,
  };
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const group = groups.get(key(item));
    if (group) group.push(item);
    else groups.set(key(item), [item]);
  }
  return groups;
}

/** The API's `schedules[].slots` become the engine's `days[].windows`; overrides are keyed by date. */
function hostAvailability(
  userId: string,
  eventTypeId: string,
  rules: EventTypeRules,
  schedule: HostSchedule | undefined,
  overrides: readonly HostOverride[],
  busy: readonly BusyRow[],
  external: readonly { start: number; end: number }[],
  outOfOffice: readonly { start: number; end: number; redirectToUserId: string | null }[],
  lastBookedAt: number | undefined,
  limits: HostLimitRow | undefined,
): HostAvailability {
  const byDate: Record<string, DateOverride> = {};
  for (const override of overrides) {
    byDate[override.date] = override.type === 'unavailable' ? { type: 'unavailable' } : { type: 'custom', windows: override.slots };
  }
  // Holds of this event type count toward its daily cap: each may become a booking. Seats of one start count once.
  const ownStarts = rules.maxBookingsPerDay === null ? [] : busy.filter((row) => row.eventTypeId === eventTypeId).map((row) => row.start);
  // With seats, this event type's seated starts stay open while seats remain (api-rules.md § Seats and series).
  const seated = (row: BusyRow): boolean => row.seats !== null && (rules.seatsPerSlot ?? null) !== null && row.eventTypeId === eventTypeId;
  const seats = busy.filter(seated);
  const others = busy.filter((row) => !seated(row));
  // Anyone else's seats occupy the host once: as a booking while one is booked, else as a hold until the last expires.
  const isHeld = (row: BusyRow): boolean => (row.seats === null ? row.expiresAt !== null : row.seats.booked === 0);
  const booked = others.filter((row) => !isHeld(row));
  const held = others.filter(isHeld);
  return {
    userId,
    schedule: schedule
      ? { timezone: schedule.timezone, days: schedule.days.map((day) => ({ dayOfWeek: day.dayOfWeek, windows: day.slots })) }
      : null,
    overrides: byDate,
    busy: booked.map(({ start, end, bufferBeforeMinutes, bufferAfterMinutes }) => ({
      start,
      end,
      bufferBeforeMinutes,
      bufferAfterMinutes,
    })),
    held: held.map(({ start, end, bufferBeforeMinutes, bufferAfterMinutes, expiresAt, seats: group }) => ({
      start,
      end,
      bufferBeforeMinutes,
      bufferAfterMinutes,
      expiresAt: group === null ? expiresAt! : Math.max(...group.holdExpiries),
    })),
    seats: seats.map(({ start, end, bufferBeforeMinutes, bufferAfterMinutes, seats: group }) => ({
      start,
      end,
      bufferBeforeMinutes,
      bufferAfterMinutes,
      booked: group!.booked,
      holdExpiries: group!.holdExpiries,
    })),
    externalBusy: external.map(({ start, end }) => ({ start, end })),
    outOfOffice: outOfOffice.map(({ start, end, redirectToUserId }) => ({ start, end, redirectToUserId })),
    bookingsPerDate: schedule && ownStarts.length > 0 ? countByLocalDate(ownStarts, schedule.timezone) : {},
    lastBookedAt: lastBookedAt ?? null,
    bookingLimits: limits
      ? { perDay: limits.perDay, perWeek: limits.perWeek, starts: limits.starts, holdExpiries: limits.holdExpiries }
      : null,
  };
}

/** The engine's view of each of these users, from one read of their data. */
export function hostsOf(userIds: readonly string[], eventTypeId: string, rules: EventTypeRules, data: HostData): HostAvailability[] {
  const scheduleOf = new Map(data.schedules.map((schedule) => [schedule.userId, schedule]));
  const overridesOf = groupBy(data.overrides, (override) => override.userId);
  const busyOf = groupBy(data.busy, (row) => row.hostUserId);
  const externalOf = groupBy(data.external, (row) => row.hostUserId);
  const outOfOfficeOf = groupBy(data.outOfOffice, (row) => row.hostUserId);
  const limitsOf = new Map(data.limits.map((row) => [row.hostUserId, row]));
  return userIds.map((userId) =>
    hostAvailability(
      userId,
      eventTypeId,
      rules,
      scheduleOf.get(userId),
      overridesOf.get(userId) ?? [],
      busyOf.get(userId) ?? [],
      externalOf.get(userId) ?? [],
      outOfOfficeOf.get(userId) ?? [],
      data.lastBookedAt.get(userId),
      limitsOf.get(userId),
    ),
  );
}
