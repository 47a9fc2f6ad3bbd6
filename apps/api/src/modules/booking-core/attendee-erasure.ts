/**
 * What an erased attendee's bookings show instead of the person (contract § 18, attendee erasure): the name
 * `Erased attendee` and an address under the reserved `.invalid` domain, which no mail is ever sent to.
 */
export const ERASED_ATTENDEE = { name: 'Erased attendee', email: 'erased@invalid' } as const;

/** Whether a mail to this address would reach an erased attendee (no mail goes there). */
export function isErasedAddress(email: string): boolean {
  return email.toLowerCase() === ERASED_ATTENDEE.email;
}
