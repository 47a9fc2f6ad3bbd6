import { Injectable } from '@nestjs/common';
import { AppConfig, type TenantScope } from '@app/common';
import type { BookingRecord } from '../booking-core/index.js';
import { SchedulesService } from '../availability/index.js';
import { type BookingForCalendar, CalendarWriteBack } from '../calendars/index.js';
import { type EventTypeSummary, EventTypesService, type Reminder } from '../event-types/index.js';
import { MailOutbox } from '../mail/index.js';
import { DomainEvents, type DomainEventType } from '../outbox/index.js';
import { TeamService } from '../team/index.js';
import { type BookingMailFacts, bookingMails, type BookingMailKind, type Contact, reminderMails } from './booking-mail.js';
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

  /** The same for several bookings' event types, by event type id. */
  summariesOf(scope: TenantScope, bookings: readonly BookingRecord[]): Promise<Map<string, EventTypeSummary>> {
    return this.eventTypes.summaries(scope, [...new Set(bookings.map((booking) => booking.eventTypeId))]);
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
   * The reminders of these bookings that are due now, in the sender's transaction (api-rules.md § Reminders): per
   * booking and reminder one `booking.reminder` event, and in live mode the mails to its recipients (the attendee's in
   * its zone; each host's in the zone of its schedule).
   */
  async remind(scope: TenantScope, due: readonly DueBookingReminder[]): Promise<void> {
    await this.events.recordMany(
      scope,
      due.map(({ booking, hostUserIds, summary, reminder }) => ({
        type: 'booking.reminder' as const,
        data: { booking: bookingDetailView(booking, hostUserIds, summary), reminder: { minutesBefore: reminder.minutesBefore } },
      })),
    );
    if (!scope.livemode) return;
    const hostIds = [...new Set(due.flatMap(({ hostUserIds }) => hostUserIds))];
    const [contacts, zones] = await Promise.all([this.team.contactsOf(scope, hostIds), this.schedules.timezonesOf(scope, hostIds)]);
    for (const { booking, hostUserIds, summary, reminder } of due) {
      const hosts = hostUserIds.flatMap((id) => (contacts.has(id) ? [contacts.get(id)!] : []));
      const hostZones = new Map<string, string>();
      for (const id of hostUserIds) if (contacts.has(id)) hostZones.set(contacts.get(id)!.email, zones.get(id) ?? 'UTC');
      const mails = reminderMails(this.mailFacts(booking, summary.title, hosts), reminder.recipients, hostZones);
      for (const mail of mails) await this.mail.enqueue(scope, mail);
    }
  }

  /**
   * One mail per recipient group for several occurrences of a series (made, or cancelled together), listing every
   * date, with one `.ics` holding each occurrence; `bookings` in order, the first standing for them all.
   */
  async sendSeriesMails(
    scope: TenantScope,
    kind: BookingMailKind,
    bookings: readonly BookingRecord[],
    details: BookingMailDetails,
  ): Promise<void> {
    const occurrences = bookings.map((booking) => ({ bookingId: booking.id, startsAt: booking.startsAt, endsAt: booking.endsAt }));
    await this.sendMails(scope, kind, bookings[0], details, occurrences.length > 1 ? occurrences : undefined);
  }

  /** Test-mode bookings send no mail (api-rules.md § Test mode). */
  async sendMails(
    scope: TenantScope,
    kind: BookingMailKind,
    booking: BookingRecord,
    details: BookingMailDetails,
    occurrences?: BookingMailFacts['occurrences'],
  ): Promise<void> {
    const { hostUserIds, title, confirmationToken, reason, previousStartsAt, previousHostUserIds = [] } = details;
    if (!scope.livemode) return;
    const contacts = await this.team.contactsOf(scope, [...hostUserIds, ...previousHostUserIds]);
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
    for (const mail of mails) await this.mail.enqueue(scope, mail);
  }

  private mailFacts(booking: BookingRecord, title: string, hosts: Contact[]): BookingMailFacts {
    return {
      bookingId: booking.id,
      title,
      startsAt: booking.startsAt,
      endsAt: booking.endsAt,
      timezone: booking.timezone,
      location: booking.location,
      answers: booking.answers,
      attendee: { email: booking.attendeeEmail, name: attendeeNameOf(booking) },
      hosts,
      status: booking.status,
      appUrl: this.config.appUrl,
    };
  }
}
