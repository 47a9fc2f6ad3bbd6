import ical, { ICalCalendarMethod, ICalEventStatus } from 'ical-generator';
import type { MailIcal, OutgoingMail } from '../mail/index.js';
import { answerText, type BookingAnswer } from './booking-answers.js';

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
  appUrl: string;
  /**
   * A recurring series' occurrences (api-rules.md § Seats and series), the first being the booking above: the mail lists
   * every date and its `.ics` holds each occurrence as its own event (UID = that occurrence's booking id).
   */
  occurrences?: readonly { bookingId: string; startsAt: Date; endsAt: Date }[];
}

export type BookingMailKind = 'confirmation' | 'pending' | 'cancellation' | 'reschedule';

const SUBJECTS: Record<BookingMailKind, (title: string) => string> = {
  confirmation: (title) => `Confirmed: ${title}`,
  pending: (title) => `Requested: ${title} (awaiting confirmation)`,
  cancellation: (title) => `Cancelled: ${title}`,
  reschedule: (title) => `Rescheduled: ${title}`,
};

const formatters = new Map<string, Intl.DateTimeFormat>();

/** Building an Intl formatter costs far more than using one: one per zone, kept. */
function when(facts: BookingMailFacts, at: Date): string {
  let format = formatters.get(facts.timezone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-GB', { dateStyle: 'full', timeStyle: 'short', timeZone: facts.timezone });
    formatters.set(facts.timezone, format);
  }
  return `${format.format(at)} (${facts.timezone})`;
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

/** One message per recipient group: the attendee's copy carries the token links, the hosts' does not. */
export function bookingMails(kind: BookingMailKind, facts: BookingMailFacts): OutgoingMail[] {
  const method = kind === 'cancellation' ? ICalCalendarMethod.CANCEL : ICalCalendarMethod.REQUEST;
  const ics: MailIcal | undefined =
    kind === 'pending'
      ? undefined
      : { method: kind === 'cancellation' ? 'CANCEL' : 'REQUEST', filename: 'invite.ics', content: bookingIcs(facts, method) };
  const dates = facts.occurrences
    ? [`When (${facts.occurrences.length} dates):`, ...facts.occurrences.map((occurrence) => `  ${when(facts, occurrence.startsAt)}`)]
    : [`When: ${when(facts, facts.startsAt)}`];
  const lines = [
    `${facts.title}`,
    ...dates,
    ...(facts.previousStartsAt ? [`Previously: ${when(facts, facts.previousStartsAt)}`] : []),
    ...(facts.location ? [`Where: ${facts.location}`] : []),
    `Attendee: ${facts.attendee.name ? `${facts.attendee.name} <${facts.attendee.email}>` : facts.attendee.email}`,
    ...(facts.reason ? [`Reason: ${facts.reason}`] : []),
    `Booking: ${facts.bookingId}`,
  ];
  const tokenLines = facts.confirmationToken
    ? [
        '',
        `To cancel or reschedule, use this token with the booking id: ${facts.confirmationToken}`,
        `Cancel: ${facts.appUrl}/bookings/${facts.bookingId}/cancel?token=${facts.confirmationToken}`,
        `Reschedule: ${facts.appUrl}/bookings/${facts.bookingId}/reschedule?token=${facts.confirmationToken}`,
      ]
    : [];
  const render = (extra: string[]): { text: string; html: string } => {
    const all = [...lines, ...extra];
    return { text: all.join('\n'), html: `<p>${all.map((l) => escapeHtml(l)).join('<br>\n')}</p>` };
  };
  const subject = SUBJECTS[kind](facts.title);
  const attendeeMail: OutgoingMail = {
    to: [facts.attendee.email],
    subject,
    ...render(tokenLines),
    ical: ics,
  };
  const hostEmails = facts.hosts.map((h) => h.email).filter((e) => e !== facts.attendee.email);
  if (hostEmails.length === 0) return [attendeeMail];
  const answers = answerLines(facts);
  return [attendeeMail, { to: hostEmails, subject, ...render(answers.length > 0 ? ['', 'Answers:', ...answers] : []), ical: ics }];
}
