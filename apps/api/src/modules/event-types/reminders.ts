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
