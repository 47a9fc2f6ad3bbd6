import { AppError } from '@app/common';

/** Reminders before a booking's start (api-rules.md § Reminders): the event type's own list. */
export const REMINDER_RECIPIENTS = ['attendee', 'host'] as const;
export type ReminderRecipient = (typeof REMINDER_RECIPIENTS)[number];

export const MAX_REMINDERS = 5;
/** Thirty days. */
export const MAX_MINUTES_BEFORE = 43_200;

/** A reminder as stored and shown. */
export interface Reminder {
  minutesBefore: number;
  recipients: ReminderRecipient[];
}

/**
 * The rule between entries that the DTO cannot see: `minutesBefore` unique in the list (400 naming
 * `reminders[i].minutesBefore`). Stored earliest first, each reminder's recipients in the canonical order.
 */
export function normalizeReminders(inputs: readonly Reminder[]): Reminder[] {
  const seen = new Set<number>();
  inputs.forEach((input, index) => {
    if (seen.has(input.minutesBefore)) {
      throw AppError.validation(`reminders[${index}].minutesBefore`, `minutesBefore ${input.minutesBefore} is used twice`);
    }
    seen.add(input.minutesBefore);
  });
  return inputs
    .map((input) => ({
      minutesBefore: input.minutesBefore,
      recipients: REMINDER_RECIPIENTS.filter((recipient) => input.recipients.includes(recipient)),
    }))
    .sort((a, b) => b.minutesBefore - a.minutesBefore);
}

/**
 * The reminder list in force for bookings being confirmed in the caller's transaction, as SQL for a statement that
 * writes their due rows from it (`reminders`, a jsonb array of Reminder): the event type's row is held FOR KEY SHARE
 * until the transaction ends, and a change of the list holds it FOR UPDATE (findOne with `lock`), so either that change
 * sees the bookings once the caller commits and moves their rows, or this read waits for it and takes the new list.
 * `organizationId` and `eventTypeId` are the statement's parameters (e.g. `$1`).
 */
export function lockedReminderListSql(organizationId: string, eventTypeId: string): string {
  return `SELECT reminders FROM event_types WHERE organization_id = ${organizationId} AND id = ${eventTypeId} FOR KEY SHARE`;
}
