import { Injectable } from '@nestjs/common';
import { AppConfig, type TenantScope } from '@app/common';
import { type BookingForCalendar, CalendarWriteBack } from '../calendars/index.js';
import { type EventTypeSummary, EventTypesService } from '../event-types/index.js';
import { MailOutbox } from '../mail/index.js';
import { DomainEvents, type DomainEventType } from '../outbox/index.js';
import { TeamService } from '../team/index.js';
import { type BookingMailFacts, bookingMails, type BookingMailKind } from './booking-mail.js';
import { attendeeNameOf } from './booking-views.js';
import type { Booking } from './entities/booking.entity.js';

/** What a host's calendar shows of a booking (api-rules.md § Calendars, write-back). */
function forCalendar(booking: Booking, title: string): BookingForCalendar {
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

/** What booking mails say beyond the booking itself. */
interface BookingMailDetails {
  hostUserIds: readonly string[];
  title: string;
  /** Only in the mails that carry the attendee's links (creation, reschedule). */
  confirmationToken?: string;
  reason?: string | null;
  previousStartsAt?: Date;
}

/**
 * What a booking's changes cause beyond its own rows, all recorded in the caller's transaction (the outboxes):
 * the domain event (webhooks), the mails, and the write-back to the hosts' calendars.
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
  ) {}

  /** What a booking shows of its event type, deleted ones included. */
  async summaryOf(scope: TenantScope, booking: Booking): Promise<EventTypeSummary> {
    const summaries = await this.eventTypes.summaries(scope, [booking.eventTypeId]);
    return summaries.get(booking.eventTypeId)!;
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

  /** The booking is on the hosts' calendars from now on (their write-back destinations). */
  async toCalendars(scope: TenantScope, booking: Booking, title: string, hostUserIds: readonly string[]): Promise<void> {
    await this.writeBack.confirmed(scope, forCalendar(booking, title), [...hostUserIds]);
  }

  /** Several bookings with the same hosts (a series' occurrences) on their calendars, in one statement. */
  async allToCalendars(scope: TenantScope, bookings: readonly Booking[], title: string, hostUserIds: readonly string[]): Promise<void> {
    await this.writeBack.confirmedMany(
      scope,
      bookings.map((booking) => forCalendar(booking, title)),
      hostUserIds,
    );
  }

  /** The booking leaves the hosts' calendars. */
  async offCalendars(scope: TenantScope, bookingId: string, hostUserIds: readonly string[]): Promise<void> {
    await this.writeBack.removed(scope, bookingId, [...hostUserIds]);
  }

  /**
   * One mail per recipient group for several occurrences of a series (made, or cancelled together), listing every
   * date, with one `.ics` holding each occurrence; `bookings` in order, the first standing for them all.
   */
  async sendSeriesMails(
    scope: TenantScope,
    kind: BookingMailKind,
    bookings: readonly Booking[],
    details: BookingMailDetails,
  ): Promise<void> {
    const occurrences = bookings.map((booking) => ({ bookingId: booking.id, startsAt: booking.startsAt, endsAt: booking.endsAt }));
    await this.sendMails(scope, kind, bookings[0], details, occurrences.length > 1 ? occurrences : undefined);
  }

  /** Test-mode bookings send no mail (api-rules.md § Test mode). */
  async sendMails(
    scope: TenantScope,
    kind: BookingMailKind,
    booking: Booking,
    details: BookingMailDetails,
    occurrences?: BookingMailFacts['occurrences'],
  ): Promise<void> {
    const { hostUserIds, title, confirmationToken, reason, previousStartsAt } = details;
    if (!scope.livemode) return;
    const contacts = await this.team.contactsOf(scope, hostUserIds);
    const hosts = hostUserIds.flatMap((id) => (contacts.has(id) ? [contacts.get(id)!] : []));
    const attendeeName = attendeeNameOf(booking);
    const mails = bookingMails(kind, {
      bookingId: booking.id,
      title,
      startsAt: booking.startsAt,
      endsAt: booking.endsAt,
      timezone: booking.timezone,
      location: booking.location,
      answers: booking.answers,
      attendee: { email: booking.attendeeEmail, name: attendeeName },
      hosts,
      confirmationToken,
      status: booking.status,
      reason,
      previousStartsAt,
      appUrl: this.config.appUrl,
      occurrences,
    });
    for (const mail of mails) await this.mail.enqueue(scope, mail);
  }
}
