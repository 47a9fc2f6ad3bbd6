import ical, { ICalCalendarMethod, ICalEventStatus } from 'ical-generator';
import type { MailIcal, OutgoingMail } from '../mail/index.js';
import { answerText, type BookingAnswer } from '../booking-core/index.js';
import { type MailKey, readerLocale, relativeMinutes, type Translator, translator } from '../../i18n/index.js';

export interface Contact {
  email: string;
  name: string | null;
  /** A member's own locale (contract § 23); null or absent: the organization's default. */
  locale?: string | null;
  /** A host's zone (its schedule's): its copies show times there; absent: the attendee's zone. */
  zone?: string;
  /** The organization's `defaultLocale`, read with a member's contact. */
  defaultLocale?: string;
}

export interface BookingMailFacts {
  bookingId: string;
  title: string;
  startsAt: Date;
  endsAt: Date;
  /** The attendee's zone: times in the attendee's copy are shown there. */
  timezone: string;
  /** The attendee's locale as given (contract § 23); null: the organization's default. */
  attendeeLocale: string | null;
  /** The organization's `defaultLocale`: what a reader without a locale of their own (or an unknown one) reads. */
  organizationLocale: string;
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
  /** A no-show mail's party (the one marked as not having come). */
  noShowParty?: 'attendee' | 'host';
  /** A reminder's lead time, for its first line ("starts in 1 day"). */
  minutesBefore?: number;
}

export type BookingMailKind =
  'confirmation' | 'pending' | 'cancellation' | 'declined' | 'reschedule' | 'reassignment' | 'reassigned' | 'reminder' | 'noShow';

/** Whose copy a mail is: the attendee's carries the token links, the hosts' the answers. */
type Audience = 'attendee' | 'hosts';

/** One reader group: the same locale and zone read the same text. */
interface Readers {
  to: string[];
  audience: Audience;
  tr: Translator;
  zone: string;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
}

function nameOf(contact: Contact): string {
  return contact.name ?? contact.email;
}

/** "Company: Acme" per answer, in the questions' order, in the reader's words for yes and no. */
function answerLines(facts: BookingMailFacts, tr: Translator): string[] {
  return (facts.answers ?? []).map((answer) =>
    tr.t('answer', {
      label: answer.label,
      value: typeof answer.value === 'boolean' ? tr.t(answer.value ? 'yes' : 'no') : answerText(answer),
    }),
  );
}

function occurrencesOf(facts: BookingMailFacts): readonly { bookingId: string; startsAt: Date; endsAt: Date }[] {
  return facts.occurrences ?? [{ bookingId: facts.bookingId, startsAt: facts.startsAt, endsAt: facts.endsAt }];
}

/** Stand-ins for the reader's SUMMARY and DESCRIPTION in an invitation built once for all of a booking's readers. */
const SUMMARY_SLOT = 'SCHEDREADERSUMMARY';
const DESCRIPTION_SLOT = 'SCHEDREADERDESCRIPTION';

/**
 * The calendar invitation without its reader's words: UID is the booking id, so clients update or remove the same
 * event. Built once per mail kind however many readers (ical-generator's line folding is most of a mail's cost); each
 * reader's copy puts its SUMMARY and DESCRIPTION in (`readerIcs`).
 */
function icsTemplate(facts: BookingMailFacts, method: ICalCalendarMethod.REQUEST | ICalCalendarMethod.CANCEL): string {
  const calendar = ical({ prodId: { company: 'scheduling-api', product: 'bookings' }, method });
  const organizer = facts.hosts[0];
  for (const occurrence of occurrencesOf(facts)) {
    calendar.createEvent({
      id: occurrence.bookingId,
      start: occurrence.startsAt,
      end: occurrence.endsAt,
      stamp: new Date(),
      summary: SUMMARY_SLOT,
      location: facts.location ?? undefined,
      description: DESCRIPTION_SLOT,
      status: method === ICalCalendarMethod.CANCEL ? ICalEventStatus.CANCELLED : ICalEventStatus.CONFIRMED,
      sequence: method === ICalCalendarMethod.CANCEL ? 1 : 0,
      organizer: organizer ? { name: organizer.name ?? organizer.email, email: organizer.email } : undefined,
      attendees: [facts.attendee, ...facts.hosts].map((c) => ({ email: c.email, name: c.name ?? undefined })),
    });
  }
  return calendar.toString();
}

/** RFC 5545 § 3.3.11 TEXT: backslash, semicolon and comma escaped, line breaks as `\n` (as ical-generator writes it). */
function icsText(text: string): string {
  return text.replace(/[\\;,]/g, (c) => `\\${c}`).replace(/\r\n|\r|\n/g, '\\n');
}

/** RFC 5545 § 3.1: a content line folded after 75 octets, never inside a character (as ical-generator folds). */
function folded(line: string): string {
  let out = '';
  let octets = 0;
  for (const char of line) {
    const code = char.codePointAt(0)!;
    const size = code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
    octets += size;
    if (octets > 74) {
      out += '\r\n ';
      octets = size;
    }
    out += char;
  }
  return out;
}

/**
 * A reader's invitation (contract § 23): SUMMARY names the meeting and who it is with (the hosts for the attendee, the
 * attendee for the hosts), DESCRIPTION the booking and the answers, in the reader's language.
 */
function readerIcs(template: string, facts: BookingMailFacts, tr: Translator, audience: Audience): string {
  const others = audience === 'attendee' ? facts.hosts.map(nameOf).join(', ') : nameOf(facts.attendee);
  const summary = others ? tr.t('icsSummary', { title: facts.title, names: others }) : facts.title;
  const description = [tr.t('booking', { id: facts.bookingId }), ...answerLines(facts, tr)].join('\n');
  return template
    .replaceAll(`SUMMARY:${SUMMARY_SLOT}`, () => folded(`SUMMARY:${icsText(summary)}`))
    .replaceAll(`DESCRIPTION:${DESCRIPTION_SLOT}`, () => folded(`DESCRIPTION:${icsText(description)}`));
}

/** The calendar invitation as `reader` reads it (the hosts' copy by default, in the organization's language). */
export function bookingIcs(
  facts: BookingMailFacts,
  method: ICalCalendarMethod.REQUEST | ICalCalendarMethod.CANCEL,
  tr: Translator = translator(readerLocale(null, facts.organizationLocale)),
  audience: Audience = 'hosts',
): string {
  return readerIcs(icsTemplate(facts, method), facts, tr, audience);
}

/** Each invitation template of one booking's mails, built once (per method) whoever reads it. */
type Templates = Map<ICalCalendarMethod, string>;

const SUBJECT: Record<BookingMailKind, MailKey> = {
  confirmation: 'subject.confirmation',
  pending: 'subject.pending',
  cancellation: 'subject.cancellation',
  declined: 'subject.declined',
  reschedule: 'subject.reschedule',
  reassignment: 'subject.reassignment',
  reassigned: 'subject.reassigned',
  reminder: 'subject.reminder',
  noShow: 'subject.noShow',
};

function leadOf(kind: BookingMailKind, facts: BookingMailFacts, tr: Translator): string {
  switch (kind) {
    case 'reminder':
      return tr.t('lead.reminder', { relative: relativeMinutes(tr.locale.dates, facts.minutesBefore ?? 0) });
    case 'noShow':
      return tr.t('lead.noShow', { party: facts.noShowParty ?? 'attendee' });
    default:
      return tr.t(`lead.${kind}`);
  }
}

/** The lines every mail of a booking has, in the reader's language, its times shown in the reader's zone. */
function factLines(kind: BookingMailKind, facts: BookingMailFacts, tr: Translator, zone: string): string[] {
  const dates = facts.occurrences
    ? [
        tr.t('whenMany', { count: facts.occurrences.length }),
        ...facts.occurrences.map((occurrence) => `  ${tr.when(zone, occurrence.startsAt)}`),
      ]
    : [tr.t('when', { when: tr.when(zone, facts.startsAt) })];
  const attendee = facts.attendee.name ? `${facts.attendee.name} <${facts.attendee.email}>` : facts.attendee.email;
  return [
    leadOf(kind, facts, tr),
    '',
    facts.title,
    ...dates,
    ...(facts.previousStartsAt ? [tr.t('previously', { when: tr.when(zone, facts.previousStartsAt) })] : []),
    ...(facts.location ? [tr.t('where', { location: facts.location })] : []),
    ...(facts.hosts.length > 0 ? [tr.t('hosts', { names: facts.hosts.map(nameOf).join(', ') })] : []),
    ...(facts.previousHosts?.length ? [tr.t('previousHosts', { names: facts.previousHosts.map(nameOf).join(', ') })] : []),
    tr.t('attendee', { attendee }),
    ...(facts.reason ? [tr.t('reason', { reason: facts.reason })] : []),
    tr.t('booking', { id: facts.bookingId }),
  ];
}

function rendered(lines: readonly string[]): { text: string; html: string } {
  return { text: lines.join('\n'), html: `<p>${lines.map((l) => escapeHtml(l)).join('<br>\n')}</p>` };
}

/** What the attendee's copy adds: the token and the links that use it. */
function tokenLines(facts: BookingMailFacts, tr: Translator): string[] {
  const token = facts.confirmationToken;
  if (!token) return [];
  return [
    '',
    tr.t('token', { token }),
    tr.t('cancel', { url: `${facts.appUrl}/bookings/${facts.bookingId}/cancel?token=${token}` }),
    tr.t('reschedule', { url: `${facts.appUrl}/bookings/${facts.bookingId}/reschedule?token=${token}` }),
  ];
}

/** What the hosts' copy adds: "Answers:" and one line per answer; nothing without answers. */
function answersBlock(facts: BookingMailFacts, tr: Translator): string[] {
  const answers = answerLines(facts, tr);
  return answers.length > 0 ? ['', tr.t('answers'), ...answers] : [];
}

/** The attendee as a reader: its locale, in its booking's zone. */
function attendeeReaders(facts: BookingMailFacts): Readers {
  return {
    to: [facts.attendee.email],
    audience: 'attendee',
    tr: translator(readerLocale(facts.attendeeLocale, facts.organizationLocale)),
    zone: facts.timezone,
  };
}

/** Hosts as readers, grouped by what they read (locale and zone): one mail per group, in the hosts' order. */
function hostReaders(facts: BookingMailFacts, hosts: readonly Contact[], skip: readonly string[]): Readers[] {
  const groups = new Map<string, Readers>();
  for (const host of hosts) {
    if (skip.includes(host.email)) continue;
    const tr = translator(readerLocale(host.locale, facts.organizationLocale));
    const zone = host.zone ?? facts.timezone;
    const key = `${tr.locale.catalog} ${tr.locale.dates} ${zone}`;
    const group = groups.get(key);
    if (group) group.to.push(host.email);
    else groups.set(key, { to: [host.email], audience: 'hosts', tr, zone });
  }
  return [...groups.values()];
}

/** One reader group's mail: subject, body and `.ics` in its language, times in its zone. */
function mailFor(
  kind: BookingMailKind,
  facts: BookingMailFacts,
  readers: Readers,
  method: ICalCalendarMethod.REQUEST | ICalCalendarMethod.CANCEL | null,
  templates: Templates,
): OutgoingMail {
  const { tr, zone, audience } = readers;
  const extra = audience === 'attendee' ? tokenLines(facts, tr) : answersBlock(facts, tr);
  let ics: MailIcal | undefined;
  if (method !== null) {
    let template = templates.get(method);
    if (template === undefined) templates.set(method, (template = icsTemplate(facts, method)));
    ics = {
      method: method === ICalCalendarMethod.CANCEL ? 'CANCEL' : 'REQUEST',
      filename: 'invite.ics',
      content: readerIcs(template, facts, tr, audience),
    };
  }
  return {
    to: readers.to,
    subject: tr.t(SUBJECT[kind], { title: facts.title }),
    ...rendered([...factLines(kind, facts, tr, zone), ...extra]),
    ical: ics,
  };
}

/**
 * One message per reader group (contract § 23): the attendee's in the attendee's locale and zone, carrying the token
 * links; the hosts' in each host's locale (else the organization's default) and schedule zone, with the answers.
 */
export function bookingMails(kind: BookingMailKind, facts: BookingMailFacts): OutgoingMail[] {
  const method =
    kind === 'pending' || kind === 'noShow'
      ? null
      : kind === 'cancellation' || kind === 'declined'
        ? ICalCalendarMethod.CANCEL
        : ICalCalendarMethod.REQUEST;
  const templates: Templates = new Map();
  const mails = [mailFor(kind, facts, attendeeReaders(facts), method, templates)];
  const hostEmails = facts.hosts.map((h) => h.email);
  for (const readers of hostReaders(facts, facts.hosts, [facts.attendee.email]))
    mails.push(mailFor(kind, facts, readers, method, templates));
  // A reassignment's former hosts: the meeting is no longer theirs, their calendars drop it (same UID).
  if (kind === 'reassignment') {
    for (const readers of hostReaders(facts, facts.previousHosts ?? [], [facts.attendee.email, ...hostEmails])) {
      mails.push(mailFor('reassigned', facts, readers, ICalCalendarMethod.CANCEL, templates));
    }
  }
  return mails;
}

/**
 * A no-show mark (contract § 15, § 23): the party marked is told, the attendee in its locale and zone, the hosts in
 * theirs. No `.ics`: the meeting is over.
 */
export function noShowMails(facts: BookingMailFacts, party: 'attendee' | 'host'): OutgoingMail[] {
  const withParty = { ...facts, noShowParty: party };
  const none: Templates = new Map();
  if (party === 'attendee') return [mailFor('noShow', withParty, attendeeReaders(withParty), null, none)];
  return hostReaders(withParty, withParty.hosts, [withParty.attendee.email]).map((readers) =>
    mailFor('noShow', withParty, readers, null, none),
  );
}

/**
 * A reminder's mails (api-rules.md § Reminders), subject `Reminder: <title>` in the reader's language, each with the
 * booking's `.ics` (same UID: a calendar updates the event it has): the attendee's in the attendee's locale and zone;
 * the hosts' in each one's locale and schedule zone (the attendee's zone without one), with the attendee's answers.
 */
export function reminderMails(facts: BookingMailFacts, recipients: readonly ('attendee' | 'host')[]): OutgoingMail[] {
  const mails: OutgoingMail[] = [];
  const templates: Templates = new Map();
  if (recipients.includes('attendee'))
    mails.push(mailFor('reminder', facts, attendeeReaders(facts), ICalCalendarMethod.REQUEST, templates));
  if (recipients.includes('host')) {
    for (const host of facts.hosts) {
      if (host.email === facts.attendee.email) continue;
      const readers: Readers = {
        to: [host.email],
        audience: 'hosts',
        tr: translator(readerLocale(host.locale, facts.organizationLocale)),
        zone: host.zone ?? facts.timezone,
      };
      mails.push(mailFor('reminder', facts, readers, ICalCalendarMethod.REQUEST, templates));
    }
  }
  return mails;
}
