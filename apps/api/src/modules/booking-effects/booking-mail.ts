import ical, { ICalCalendarMethod, ICalEventStatus } from 'ical-generator';
import type { MailIcal, OutgoingMail } from '../mail/index.js';
import { answerText, type BookingAnswer } from '../booking-core/index.js';

export interface Contact {
  email: string;
  name: string | null;
}

export interface BookingMailFacts {
  bookingId: string;
  title: string;
  startsAt: Date;
  endsAt: Date;
  /** The attendee's zone: times in the text are shown there. */
  timezone: string;
  location: string | null;
  /** The attendee's answers to the event type's questions: in the hosts' mail and the `.ics` description. */
  answers?: readonly BookingAnswer[];
  attendee: Contact;
  hosts: Contact[];
  /** The attendee's token for cancel and reschedule links; only in the attendee's copy. */
  confirmationToken?: string;
  status: 'confirmed' | 'pending' | 'cancelled';
  reason?: string | null;
  previousStartsAt?: Date;
  /** A reassignment's former hosts: told in a mail of their own (with a CANCEL `.ics`), named in the others. */
  previousHosts?: Contact[];
  appUrl: string;
  /**
   * A recurring series' occurrences (api-rules.md § Seats and series), the first being the booking above: the mail lists
   * every date and its `.ics` holds each occurrence as its own event (UID = that occurrence's booking id).
   */
  occurrences?: readonly { bookingId: string; startsAt: Date; endsAt: Date }[];
}

export type BookingMailKind = 'confirmation' | 'pending' | 'cancellation' | 'reschedule' | 'reassignment';

const SUBJECTS: Record<BookingMailKind, (title: string) => string> = {
  confirmation: (title) => `Confirmed: ${title}`,
  pending: (title) => `Requested: ${title} (awaiting confirmation)`,
  cancellation: (title) => `Cancelled: ${title}`,
  reschedule: (title) => `Rescheduled: ${title}`,
  reassignment: (title) => `New host: ${title}`,
};

const formatters = new Map<string, Intl.DateTimeFormat>();

/** Building an Intl formatter costs far more than using one: one per zone, kept. */
function when(zone: string, at: Date): string {
  let format = formatters.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-GB', { dateStyle: 'full', timeStyle: 'short', timeZone: zone });
    formatters.set(zone, format);
  }
  return `${format.format(at)} (${zone})`;
}

/** "Company: Acme" per answer, in the questions' order. */
function answerLines(facts: BookingMailFacts): string[] {
  return (facts.answers ?? []).map((answer) => `${answer.label}: ${answerText(answer)}`);
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
}

/** The calendar invitation: UID is the booking id, so clients update or remove the same event. */
export function bookingIcs(facts: BookingMailFacts, method: ICalCalendarMethod.REQUEST | ICalCalendarMethod.CANCEL): string {
  const calendar = ical({ prodId: { company: 'scheduling-api', product: 'bookings' }, method });
  const organizer = facts.hosts[0];
  for (const occurrence of occurrencesOf(facts)) {
    calendar.createEvent({
      id: occurrence.bookingId,
      start: occurrence.startsAt,
      end: occurrence.endsAt,
      stamp: new Date(),
      summary: facts.title,
      location: facts.location ?? undefined,
      description: answerLines(facts).join('\n') || undefined,
      status: method === ICalCalendarMethod.CANCEL ? ICalEventStatus.CANCELLED : ICalEventStatus.CONFIRMED,
      sequence: method === ICalCalendarMethod.CANCEL ? 1 : 0,
      organizer: organizer ? { name: organizer.name ?? organizer.email, email: organizer.email } : undefined,
      attendees: [facts.attendee, ...facts.hosts].map((c) => ({ email: c.email, name: c.name ?? undefined })),
    });
  }
  return calendar.toString();
}

function occurrencesOf(facts: BookingMailFacts): readonly { bookingId: string; startsAt: Date; endsAt: Date }[] {
  return facts.occurrences ?? [{ bookingId: facts.bookingId, startsAt: facts.startsAt, endsAt: facts.endsAt }];
}

/** The lines every mail of a booking starts with, its times shown in `zone`. */
function factLines(facts: BookingMailFacts, zone: string): string[] {
  const dates = facts.occurrences
    ? [`When (${facts.occurrences.length} dates):`, ...facts.occurrences.map((occurrence) => `  ${when(zone, occurrence.startsAt)}`)]
    : [`When: ${when(zone, facts.startsAt)}`];
  return [
    `${facts.title}`,
    ...dates,
    ...(facts.previousStartsAt ? [`Previously: ${when(zone, facts.previousStartsAt)}`] : []),
    ...(facts.location ? [`Where: ${facts.location}`] : []),
    ...(facts.hosts.length > 0 ? [`Hosts: ${facts.hosts.map((host) => host.name ?? host.email).join(', ')}`] : []),
    ...(facts.previousHosts?.length
      ? [`Previously hosted by: ${facts.previousHosts.map((host) => host.name ?? host.email).join(', ')}`]
      : []),
    `Attendee: ${facts.attendee.name ? `${facts.attendee.name} <${facts.attendee.email}>` : facts.attendee.email}`,
    ...(facts.reason ? [`Reason: ${facts.reason}`] : []),
    `Booking: ${facts.bookingId}`,
  ];
}

function rendered(lines: readonly string[]): { text: string; html: string } {
  return { text: lines.join('\n'), html: `<p>${lines.map((l) => escapeHtml(l)).join('<br>\n')}</p>` };
}

/** "Answers:" and one line per answer, for the hosts' copies; nothing without answers. */
function answersBlock(facts: BookingMailFacts): string[] {
  const answers = answerLines(facts);
  return answers.length > 0 ? ['', 'Answers:', ...answers] : [];
}

/** One message per recipient group: the attendee's copy carries the token links, the hosts' does not. */
export function bookingMails(kind: BookingMailKind, facts: BookingMailFacts): OutgoingMail[] {
  const method = kind === 'cancellation' ? ICalCalendarMethod.CANCEL : ICalCalendarMethod.REQUEST;
  const ics: MailIcal | undefined =
    kind === 'pending'
      ? undefined
      : { method: kind === 'cancellation' ? 'CANCEL' : 'REQUEST', filename: 'invite.ics', content: bookingIcs(facts, method) };
  const lines = factLines(facts, facts.timezone);
  const tokenLines = facts.confirmationToken
    ? [
        '',
        `To cancel or reschedule, use this token with the booking id: ${facts.confirmationToken}`,
        `Cancel: ${facts.appUrl}/bookings/${facts.bookingId}/cancel?token=${facts.confirmationToken}`,
        `Reschedule: ${facts.appUrl}/bookings/${facts.bookingId}/reschedule?token=${facts.confirmationToken}`,
      ]
    : [];
  const subject = SUBJECTS[kind](facts.title);
  const attendeeMail: OutgoingMail = { to: [facts.attendee.email], subject, ...rendered([...lines, ...tokenLines]), ical: ics };
  const hostEmails = facts.hosts.map((h) => h.email).filter((e) => e !== facts.attendee.email);
  const mails =
    hostEmails.length === 0
      ? [attendeeMail]
      : [attendeeMail, { to: hostEmails, subject, ...rendered([...lines, ...answersBlock(facts)]), ical: ics }];
  // A reassignment's former hosts: the meeting is no longer theirs, their calendars drop it (same UID).
  const previousEmails = (facts.previousHosts ?? [])
    .map((h) => h.email)
    .filter((e) => e !== facts.attendee.email && !hostEmails.includes(e));
  if (kind === 'reassignment' && previousEmails.length > 0) {
    const cancel: MailIcal = { method: 'CANCEL', filename: 'invite.ics', content: bookingIcs(facts, ICalCalendarMethod.CANCEL) };
    mails.push({
      to: previousEmails,
      subject: `Reassigned: ${facts.title}`,
      ...rendered([...lines, '', 'This booking now has another host.']),
      ical: cancel,
    });
  }
  return mails;
}

/**
 * A reminder's mails (api-rules.md § Reminders), subject `Reminder: <title>`, each with the booking's `.ics` (same UID:
 * a calendar updates the event it has): the attendee's in the attendee's zone; one per host, in that host's zone
 * (`hostZones` by email, the attendee's zone without one), with the attendee's answers.
 */
export function reminderMails(
  facts: BookingMailFacts,
  recipients: readonly ('attendee' | 'host')[],
  hostZones: ReadonlyMap<string, string>,
): OutgoingMail[] {
  const ical: MailIcal = { method: 'REQUEST', filename: 'invite.ics', content: bookingIcs(facts, ICalCalendarMethod.REQUEST) };
  const subject = `Reminder: ${facts.title}`;
  const mails: OutgoingMail[] = [];
  if (recipients.includes('attendee'))
    mails.push({ to: [facts.attendee.email], subject, ...rendered(factLines(facts, facts.timezone)), ical });
  if (recipients.includes('host')) {
    for (const host of facts.hosts) {
      if (host.email === facts.attendee.email) continue;
      const zone = hostZones.get(host.email) ?? facts.timezone;
      mails.push({ to: [host.email], subject, ...rendered([...factLines(facts, zone), ...answersBlock(facts)]), ical });
    }
  }
  return mails;
}
