/** The one placeholder an event type's location may carry (api-rules.md § Reminders). */
export const BOOKING_ID_PLACEHOLDER = '{bookingId}';

/** A location template: any text without braces, but for `{bookingId}`. */
export const LOCATION_TEMPLATE = /^(?:[^{}]|\{bookingId\})*$/;

/**
 * A booking's location: its event type's, `{bookingId}` replaced by the booking's id (`https://meet.jit.si/acme-{bookingId}`
 * gives every meeting its own room). Written into the booking row, so responses, mails, `.ics` files, the write-back,
 * the feed and webhooks all carry the expanded one, and a reschedule's new booking its new id's.
 */
export function locationFor(template: string | null, bookingId: string): string | null {
  return template === null ? null : template.replaceAll(BOOKING_ID_PLACEHOLDER, bookingId);
}
