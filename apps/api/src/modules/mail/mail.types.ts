export type IcalMethod = 'REQUEST' | 'CANCEL' | 'PUBLISH';

/** A calendar part; mail clients show it as an invitation when `method` matches the file's METHOD line. */
export interface MailIcal {
  method: IcalMethod;
  filename: string;
  content: string;
}

/** What a feature hands to `MailOutbox.enqueue`; the bodies may carry tokens, so they are never logged. */
export interface OutgoingMail {
  to: string[];
  subject: string;
  text: string;
  html: string;
  ical?: MailIcal;
  /** The records it tells of (booking ids): erasing an attendee deletes every mail about their bookings. */
  about?: string[];
}

export type MailStatus = 'pending' | 'sent' | 'failed';
