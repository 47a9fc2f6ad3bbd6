import { Injectable } from '@nestjs/common';
import { AppConfig, type TenantScope } from '@app/common';
import { type BookingRecord, isErasedAddress } from '../booking-core/index.js';
import { SchedulesService } from '../schedules/index.js';
import { type BookingForCalendar, CalendarWriteBack } from '../calendar-writes/index.js';
import { type EventTypeSummary, EventTypesService, type Reminder } from '../event-types/index.js';
import { MailOutbox, type OutgoingMail } from '../mail/index.js';
import { DomainEvents, type DomainEventType } from '../outbox/index.js';
import { DEFAULT_LOCALE } from '../../i18n/index.js';
import { contactOf, TeamService } from '../team/index.js';
import { type BookingMailFacts, bookingMails, type BookingMailKind, type Contact, noShowMails, reminderMails } from './booking-mail.js';
import { attendeeNameOf, bookingDetailView } from './booking-views.js';

/** What a host's calendar shows of a booking (api-rules.md § Calendars, write-back). */
function forCalendar(booking: BookingRecord, title: string): BookingForCalendar {
  return {
    id: booking.id,
    startsAt: booking.startsAt,
    endsAt: booking.endsAt,
    title,
    location: booking.location,
    attendeeEmail: booking.attendeeEmail,
    attendeeName: attendeeNameOf(booking),
  };
}

/** One reminder of one booking, due now, with what its event and mails show. */
export interface DueBookingReminder {
  booking: BookingRecord;
  hostUserIds: readonly string[];
  summary: EventTypeSummary;
  reminder: Reminder;
}

const occurrenceOf = (booking: BookingRecord) => ({ bookingId: booking.id, startsAt: booking.startsAt, endsAt: booking.endsAt });

/** Who of a booking's mail recipients a call mails: the attendee's mail, the hosts' (and former hosts'), or both. */
type MailRecipients = 'everyone' | 'attendee' | 'hosts';

/** What booking mails say beyond the booking itself. */
interface BookingMailDetails {
  hostUserIds: readonly string[];
  title: string;
  /** Only in the mails that carry the attendee's links (creation, reschedule). */
  confirmationToken?: string;
  reason?: string | null;
  previousStartsAt?: Date;
  /** A reassignment's former hosts (mailed too). */
  previousHostUserIds?: readonly string[];
  /** The contacts of all those hosts when the caller read them already (`contactsFor`). */
  contacts?: ReadonlyMap<string, Contact>;
}

/**
 * What a booking's changes cause beyond its own rows, all recorded in the caller's transaction (the outboxes):
 * the domain event (webhooks), the mails, and the write-back to the hosts' calendars. The due reminders a change
 * moves are the booking-reminders module's (RemindersService), called beside these.
 */
@Injectable()
export class BookingEffectsService {
  constructor(
    private readonly eventTypes: EventTypesService,
    private readonly team: TeamService,
    private readonly events: DomainEvents,
    private readonly mail: MailOutbox,
    private readonly writeBack: CalendarWriteBack,
    private readonly config: AppConfig,
    private readonly schedules: SchedulesService,
  ) {}

  /** What a booking shows of its event type, deleted ones included. */
  async summaryOf(scope: TenantScope, booking: BookingRecord): Promise<EventTypeSummary> {
    const summaries = await this.eventTypes.summaries(scope, [booking.eventTypeId]);
    return summaries.get(booking.eventTypeId)!;
  }

  /** The same for bookings of several organizations (a job's round), by event type id, in one statement. */
  summariesAcross(bookings: readonly { scope: TenantScope; booking: BookingRecord }[]): Promise<Map<string, EventTypeSummary>> {
    return this.eventTypes.summariesAcross(bookings.map(({ scope, booking }) => ({ scope, ids: [booking.eventTypeId] })));
  }

  async record(scope: TenantScope, type: DomainEventType, data: Record<string, unknown>): Promise<void> {
    await this.events.record(scope, { type, data });
  }

  /** One event of `type` per booking (the occurrences of a series), in one statement. */
  async recordEach(scope: TenantScope, type: DomainEventType, data: readonly Record<string, unknown>[]): Promise<void> {
    await this.events.recordMany(
      scope,
      data.map((one) => ({ type, data: one })),
    );
  }

  /** The booking is confirmed from now on (made, confirmed, or a reschedule's new booking): on the hosts' calendars. */
  async nowConfirmed(scope: TenantScope, booking: BookingRecord, title: string, hostUserIds: readonly string[]): Promise<void> {
    await this.writeBack.confirmed(scope, forCalendar(booking, title), [...hostUserIds]);
  }

  /** Several bookings with the same hosts (a series' occurrences) confirmed, in one statement. */
  async allNowConfirmed(
    scope: TenantScope,
    bookings: readonly BookingRecord[],
    title: string,
    hostUserIds: readonly string[],
  ): Promise<void> {
    if (bookings.length === 0) return;
    await this.writeBack.confirmedMany(
      scope,
      bookings.map((booking) => forCalendar(booking, title)),
      hostUserIds,
    );
  }

  /** Confirmed bookings that are no longer (cancelled, rescheduled away): off their hosts' calendars. */
  async noLongerConfirmed(scope: TenantScope, bookings: readonly { bookingId: string; hostUserIds: readonly string[] }[]): Promise<void> {
    for (const { bookingId, hostUserIds } of bookings) await this.writeBack.removed(scope, bookingId, [...hostUserIds]);
  }

  /**
   * The reminders due now of several organizations (a sender's round, in its transaction; api-rules.md § Reminders):
   * per booking and reminder one `booking.reminder` event, and in live mode the mails to its recipients (the attendee's
   * in its zone; each host's in the zone of its schedule). Its lookups are two statements for every organization (the
   * hosts' contacts and zones), made before its writes, so inside `batched()` the writes go in one round trip.
   */
  async remindAll(work: readonly { scope: TenantScope; reminders: readonly DueBookingReminder[] }[]): Promise<void> {
    const live = work.filter(({ scope, reminders }) => scope.livemode && reminders.length > 0);
    const hosts = live.map(({ scope, reminders }) => ({ scope, ids: [...new Set(reminders.flatMap(({ hostUserIds }) => hostUserIds))] }));
    const [contactsByOrganization, zonesByOrganization] =
      hosts.length > 0
        ? await Promise.all([this.team.contactsAcross(hosts), this.schedules.timezonesAcross(hosts)])
        : [new Map(), new Map()];
    for (const { scope, reminders } of work) {
      if (reminders.length === 0) continue;
      await this.events.recordMany(
        scope,
        reminders.map(({ booking, hostUserIds, summary, reminder }) => ({
          type: 'booking.reminder' as const,
          data: { booking: bookingDetailView(booking, hostUserIds, summary), reminder: { minutesBefore: reminder.minutesBefore } },
        })),
      );
      if (!scope.livemode) continue;
      const contacts = contactsByOrganization.get(scope.organizationId) ?? new Map<string, Contact>();
      const zones = zonesByOrganization.get(scope.organizationId) ?? new Map<string, string>();
      for (const { booking, hostUserIds, summary, reminder } of reminders) {
        // Each host's copy in its own locale and its schedule's zone (contract § 23).
        const hosts = hostUserIds.flatMap((id) => (contacts.has(id) ? [{ ...contacts.get(id)!, zone: zones.get(id) ?? 'UTC' }] : []));
        const facts = { ...this.mailFacts(booking, summary.title, hosts), minutesBefore: reminder.minutesBefore };
        await this.enqueue(scope, reminderMails(facts, reminder.recipients), [booking.id]);
      }
    }
  }

  /**
   * The mails of several occurrences of a series (made, or cancelled together), in order, the first standing for them
   * all: the attendee's one mail lists every date with one `.ics` holding each occurrence; each host's lists its own
   * occurrences (every one, unless a stand-in took some), hosts with the same occurrences sharing one mail.
   */
  async sendSeriesMails(
    scope: TenantScope,
    kind: BookingMailKind,
    occurrences: readonly { booking: BookingRecord; hostUserIds: readonly string[] }[],
    details: Omit<BookingMailDetails, 'hostUserIds'>,
  ): Promise<void> {
    const send = (group: readonly BookingRecord[], hostUserIds: readonly string[], recipients: MailRecipients) =>
      this.sendMails(
        scope,
        kind,
        group[0],
        { ...details, hostUserIds },
        group.length > 1 ? group.map(occurrenceOf) : undefined,
        recipients,
      );
    // Each host's own occurrences; hosts with the same ones share a mail (a collective event type's hosts).
    const byHost = new Map<string, number[]>();
    occurrences.forEach(({ hostUserIds }, index) => {
      for (const hostUserId of hostUserIds) byHost.set(hostUserId, [...(byHost.get(hostUserId) ?? []), index]);
    });
    const groups = new Map<string, { hostUserIds: string[]; indexes: number[] }>();
    for (const [hostUserId, indexes] of byHost) {
      const key = indexes.join(' ');
      if (!groups.has(key)) groups.set(key, { hostUserIds: [], indexes });
      groups.get(key)!.hostUserIds.push(hostUserId);
    }
    const all = occurrences.map((occurrence) => occurrence.booking);
    if (groups.size === 1 && [...groups.values()][0].indexes.length === all.length) {
      return send(all, occurrences[0].hostUserIds, 'everyone');
    }
    await send(all, [...byHost.keys()], 'attendee');
    for (const { hostUserIds, indexes } of groups.values()) {
      await send(
        indexes.map((index) => all[index]),
        hostUserIds,
        'hosts',
      );
    }
  }

  /**
   * The contacts `sendMails` needs for these hosts (none in test mode: no mail is sent), for a caller that reads them
   * before its writes: inside a batched transaction, a read after the first write sends the writes waiting before it,
   * so reading first lets the rows, the mails and the rest leave in one round trip.
   */
  async contactsFor(
    scope: TenantScope,
    hostUserIds: readonly string[],
    /** The hosts' members as a read before this one already gave them (the slot decision's), when it did. */
    read?: readonly {
      userId: string;
      email: string;
      firstName: string | null;
      lastName: string | null;
      locale: string | null;
      defaultLocale: string;
      zone: string;
    }[],
  ): Promise<ReadonlyMap<string, Contact> | undefined> {
    if (!scope.livemode) return undefined;
    if (read === undefined) return this.readContacts(scope, hostUserIds);
    return new Map(
      read
        .filter((member) => hostUserIds.includes(member.userId))
        .map((member) => [member.userId, { ...contactOf(member), zone: member.zone }]),
    );
  }

  /** The hosts' contacts with their locales (contract § 23) and their schedules' zones: two statements. */
  private async readContacts(scope: TenantScope, userIds: readonly string[]): Promise<Map<string, Contact>> {
    const [contacts, zones] = await Promise.all([this.team.contactsOf(scope, userIds), this.schedules.timezonesOf(scope, userIds)]);
    return new Map([...contacts].map(([id, contact]) => [id, { ...contact, zone: zones.get(id) ?? 'UTC' }]));
  }

  /**
   * A no-show mark that turned true (contract § 15, § 23): the party marked is told, in its language (live mode only).
   */
  async sendNoShowMails(
    scope: TenantScope,
    booking: BookingRecord,
    hostUserIds: readonly string[],
    title: string,
    party: 'attendee' | 'host',
  ): Promise<void> {
    if (!scope.livemode) return;
    const contacts = await this.readContacts(scope, hostUserIds);
    const hosts = hostUserIds.flatMap((id) => (contacts.has(id) ? [contacts.get(id)!] : []));
    await this.enqueue(scope, noShowMails(this.mailFacts(booking, title, hosts), party), [booking.id]);
  }

  /** Test-mode bookings send no mail (api-rules.md § Test mode). */
  async sendMails(
    scope: TenantScope,
    kind: BookingMailKind,
    booking: BookingRecord,
    details: BookingMailDetails,
    occurrences?: BookingMailFacts['occurrences'],
    recipients: MailRecipients = 'everyone',
  ): Promise<void> {
    const { hostUserIds, title, confirmationToken, reason, previousStartsAt, previousHostUserIds = [] } = details;
    if (!scope.livemode) return;
    const contacts = details.contacts ?? (await this.readContacts(scope, [...hostUserIds, ...previousHostUserIds]));
    const hosts = hostUserIds.flatMap((id) => (contacts.has(id) ? [contacts.get(id)!] : []));
    const previousHosts = previousHostUserIds.flatMap((id) => (contacts.has(id) ? [contacts.get(id)!] : []));
    const mails = bookingMails(kind, {
      ...this.mailFacts(booking, title, hosts),
      confirmationToken,
      reason,
      previousStartsAt,
      ...(previousHosts.length > 0 ? { previousHosts } : {}),
      occurrences,
    });
    const toAttendee = (mail: OutgoingMail): boolean => mail.to.includes(booking.attendeeEmail);
    const chosen = recipients === 'everyone' ? mails : mails.filter((mail) => toAttendee(mail) === (recipients === 'attendee'));
    await this.enqueue(scope, chosen, occurrences?.map((occurrence) => occurrence.bookingId) ?? [booking.id]);
  }

  /**
   * An erased attendee's bookings (contract § 18): the write-backs still queued carry the attendee in their bodies, so
   * the calendar-writes module drops them and puts the erased booking in their place on the hosts' calendars.
   */
  async attendeeErased(scope: TenantScope, bookings: readonly BookingRecord[]): Promise<void> {
    if (bookings.length === 0) return;
    const summaries = await this.summariesAcross(bookings.map((booking) => ({ scope, booking })));
    await this.writeBack.erased(
      scope,
      bookings.map((booking) => forCalendar(booking, summaries.get(booking.eventTypeId)?.title ?? '')),
    );
  }

  /** Each mail names the bookings it tells of; an erased attendee's address gets none (it is no one's). */
  private async enqueue(scope: TenantScope, mails: readonly OutgoingMail[], about: readonly string[]): Promise<void> {
    for (const mail of mails) {
      if (mail.to.some(isErasedAddress)) continue;
      await this.mail.enqueue(scope, { ...mail, about: [...about] });
    }
  }

  private mailFacts(booking: BookingRecord, title: string, hosts: Contact[]): BookingMailFacts {
    return {
      bookingId: booking.id,
      title,
      startsAt: booking.startsAt,
      endsAt: booking.endsAt,
      timezone: booking.timezone ?? 'UTC',
      attendeeLocale: booking.attendeeLocale,
      organizationLocale: hosts.find((host) => host.defaultLocale)?.defaultLocale ?? DEFAULT_LOCALE,
      location: booking.location,
      answers: booking.answers,
      attendee: { email: booking.attendeeEmail, name: attendeeNameOf(booking) },
      hosts,
      status: booking.status,
      appUrl: this.config.appUrl,
    };
  }
}
