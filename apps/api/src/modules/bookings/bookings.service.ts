import { Injectable } from '@nestjs/common';
import { parseInputTimestamp } from '@app/availability';
import {
  AppConfig,
  AppError,
  Clock,
  ErrorCode,
  looksLikeId,
  newId,
  pageMeta,
  type Principal,
  randomBase62,
  sha256,
  tenantScope,
  type TenantScope,
} from '@app/common';
import { EventTypesService, type EventTypeSummary } from '../event-types/event-types.service.js';
import { type BookingForCalendar, CalendarWriteBack } from '../calendars/calendar-write-back.js';
import { GlobalLookups } from '../global-lookups/index.js';
import { MailOutbox } from '../mail/index.js';
import { DomainEvents, type DomainEventType } from '../outbox/domain-events.js';
import { TeamService } from '../team/team.service.js';
import { bookingMails, type BookingMailKind } from './booking-mail.js';
import { attendeeBookingView, attendeeNameOf, bookingDetailView, bookingView } from './booking-views.js';
import { HoldsService } from './holds.service.js';
import { checkAnswers } from './booking-answers.js';
import { mayActOnBooking, seesAllBookings } from './booking-access.js';
import { SlotDecisionService, slotUnavailable } from './slot-decision.service.js';
import { BookingsRepository, type BookingFilters } from './bookings.repository.js';
import {
  BookingListResponse,
  BookingResponse,
  CancelBookingDto,
  CancelledBookingResponse,
  CreateBookingDto,
  DecisionDto,
  ListBookingsQueryDto,
  PublicBookingResponse,
  RescheduleBookingDto,
} from './dto/booking.dto.js';
import { Booking, type CancelledBy } from './entities/booking.entity.js';
import { fingerprintOf, IdempotencyService, type StoredResponse } from '../idempotency/index.js';
import { TransactionHost } from '@app/database';

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

function noCredentials(): AppError {
  return AppError.unauthorized('Send host credentials or the attendee token');
}

/** Who is acting on an existing booking: a host (credentials) or the attendee (token). */
interface Actor {
  by: CancelledBy;
  principal?: Principal;
}

interface LockedBooking {
  scope: TenantScope;
  booking: Booking;
  hostUserIds: string[];
  actor: Actor;
}

/** Whether 'YYYY-MM-DD…' starts with a real calendar date (2027-02-30 is not one). */
function hasRealDate(value: string): boolean {
  const [year, month, day] = value.slice(0, 10).split('-').map(Number);
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** A date is inclusive (UTC); a timestamp is exact (contract section 8). */
function rangeBound(value: string, field: string, end: boolean): Date {
  const isDate = /^\d{4}-\d{2}-\d{2}$/.test(value);
  const ms = Date.parse(isDate ? `${value}T00:00:00Z` : value);
  // Date.parse rolls 2027-02-30 over to March 2: the date part must survive the round trip.
  if (Number.isNaN(ms) || !hasRealDate(value)) {
    throw AppError.validation(field, `${field} must be a valid date or timestamp`);
  }
  return new Date(end ? ms + (isDate ? DAY_MS : 1) : ms);
}

/** What a host's calendar shows of a booking (contract section 12, write-back). */
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

@Injectable()
export class BookingsService {
  constructor(
    private readonly tx: TransactionHost,
    private readonly repository: BookingsRepository,
    private readonly slots: SlotDecisionService,
    private readonly holds: HoldsService,
    private readonly eventTypes: EventTypesService,
    private readonly lookups: GlobalLookups,
    private readonly team: TeamService,
    private readonly events: DomainEvents,
    private readonly mail: MailOutbox,
    private readonly writeBack: CalendarWriteBack,
    private readonly idempotency: IdempotencyService,
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  async create(
    principal: Principal,
    dto: CreateBookingDto,
    idempotencyKey: string | undefined,
    requestId: string,
    /** POST /public/bookings (contract section 14): the hold's token is required, and the answer is the attendee's view. */
    publicRoute?: { holdToken: string | null },
  ): Promise<StoredResponse> {
    const start = parseInputTimestamp(dto.startTime, dto.timezone);
    if (start === null) throw AppError.validation('startTime', 'startTime must be a valid ISO 8601 timestamp');
    const scope = tenantScope(principal);
    const holdToken = publicRoute ? publicRoute.holdToken : undefined;
    const fingerprint = fingerprintOf(publicRoute ? 'POST /v1/public/bookings' : 'POST /v1/bookings', { ...dto, holdToken });
    // Read before any connection is held: the hosts this booking will lock, to queue for them here first.
    const hosts = await this.slots.hostsOf(scope, dto.eventTypeId);
    return this.slots.queued(scope, hosts, () =>
      this.idempotency.run(scope, idempotencyKey, fingerprint, requestId, (complete) =>
        this.tx.transaction(() =>
          this.slots.writingTogether('startTime', async () => {
            const holdId = dto.holdId ?? null;
            const { query, eventType } = await this.slots.lockAndLoad(scope, dto.eventTypeId, start, holdId, [], hosts);
            const { answers, problems } = checkAnswers(eventType.questions, dto.answers ?? {});
            if (problems.length > 0)
              throw new AppError(ErrorCode.VALIDATION_ERROR, 'The answers do not fit the event type’s questions', problems);
            const hold = holdId === null ? null : await this.holds.takeForBooking(scope, holdId, dto.eventTypeId, start, holdToken);
            const verdict = this.slots.verdict(query, start, hold?.hostUserId);
            if (!verdict.available) throw slotUnavailable('startTime', verdict.reason);
            const hostUserIds = this.slots.occupiedHosts(query, verdict.hostUserId);
            const token = randomBase62(32);
            const now = this.clock.now();
            const booking = Object.assign(new Booking(), {
              id: newId('bkg'),
              organizationId: scope.organizationId,
              eventTypeId: eventType.id,
              livemode: scope.livemode,
              status: eventType.requiresConfirmation ? 'pending' : 'confirmed',
              startsAt: new Date(start),
              endsAt: new Date(start + eventType.durationMinutes * MINUTE_MS),
              hostUserId: hostUserIds[0],
              attendeeEmail: dto.attendee.email,
              attendeeFirstName: dto.attendee.firstName ?? null,
              attendeeLastName: dto.attendee.lastName ?? null,
              attendeePhone: dto.attendee.phone ?? null,
              timezone: dto.timezone,
              locationType: eventType.locationType,
              location: eventType.location,
              notes: dto.notes ?? null,
              metadata: dto.metadata ?? {},
              answers,
              bufferBeforeMinutes: eventType.bufferBeforeMinutes,
              bufferAfterMinutes: eventType.bufferAfterMinutes,
              confirmationTokenHash: sha256(token),
              cancelledAt: null,
              cancellationReason: null,
              cancelledBy: null,
              previousBookingId: null,
              rescheduledToBookingId: null,
              createdAt: now,
              updatedAt: now,
            } satisfies Booking);
            await this.slots.clearExpiredHolds(scope, hostUserIds);
            await this.repository.insert(scope, booking, hostUserIds);
            const detail = bookingDetailView(booking, hostUserIds, eventType);
            await this.record(scope, 'booking.created', { booking: detail });
            if (booking.status === 'confirmed') await this.writeBack.confirmed(scope, forCalendar(booking, eventType.title), hostUserIds);
            await this.sendMails(scope, booking.status === 'pending' ? 'pending' : 'confirmation', booking, {
              hostUserIds,
              title: eventType.title,
              confirmationToken: token,
            });
            const body = publicRoute
              ? { booking: attendeeBookingView(booking, token) }
              : { booking: { ...bookingView(booking, hostUserIds), confirmationToken: token } };
            await complete(201, body);
            return { status: 201, body };
          }),
        ),
      ),
    );
  }

  /** GET /public/bookings/:id with the attendee's token: what a "manage your booking" page shows. Any failure → 401. */
  async getForAttendee(id: string, token: string): Promise<PublicBookingResponse> {
    const scope = looksLikeId(id, 'bkg') ? await this.lookups.bookingForAttendee(id, token) : null;
    if (scope === null || scope === 'invalid') throw AppError.unauthorized('Invalid token for this booking');
    const found = await this.repository.find(scope, id);
    if (!found) throw AppError.unauthorized('Invalid token for this booking');
    return { booking: attendeeBookingView(found.booking) };
  }

  async get(principal: Principal, id: string): Promise<BookingResponse> {
    const scope = tenantScope(principal);
    const found = looksLikeId(id, 'bkg') ? await this.repository.find(scope, id) : null;
    if (!found || !mayActOnBooking(principal, found.hostUserIds)) throw AppError.notFound('Booking');
    return { booking: bookingDetailView(found.booking, found.hostUserIds, await this.summaryOf(scope, found.booking)) };
  }

  async list(principal: Principal, query: ListBookingsQueryDto): Promise<BookingListResponse> {
    const filters: BookingFilters = {
      status: query.status,
      eventTypeId: query.eventTypeId,
      hostUserId: query.hostUserId,
      attendeeEmail: query.attendeeEmail,
      hostedBy: seesAllBookings(principal) ? undefined : principal.userId,
    };
    if (query.startDate) filters.startsFrom = rangeBound(query.startDate, 'startDate', false);
    if (query.endDate) filters.startsBefore = rangeBound(query.endDate, 'endDate', true);
    if (filters.startsFrom && filters.startsBefore && filters.startsBefore <= filters.startsFrom) {
      throw AppError.validation('endDate', 'endDate must not be before startDate');
    }
    const page = { page: query.page, limit: query.limit };
    const scope = tenantScope(principal);
    const [bookings, total] = await this.repository.list(scope, filters, page);
    const [hosts, summaries] = await Promise.all([
      this.repository.hostsOfMany(
        scope,
        bookings.map((b) => b.id),
      ),
      this.eventTypes.summaries(
        scope,
        bookings.map((b) => b.eventTypeId),
      ),
    ]);
    return {
      bookings: bookings.map((b) => bookingDetailView(b, hosts.get(b.id) ?? [b.hostUserId], summaries.get(b.eventTypeId)!)),
      ...pageMeta(page, total),
      page: page.page,
      limit: page.limit,
    };
  }

  async cancel(principal: Principal | undefined, id: string, dto: CancelBookingDto): Promise<CancelledBookingResponse> {
    return this.tx.transaction(async () => {
      const { scope, booking, hostUserIds, actor } = await this.lockForAction(principal, id, dto.token);
      this.assertChangeable(booking);
      const wasConfirmed = booking.status === 'confirmed';
      const now = this.clock.now();
      const reason = dto.reason ?? null;
      await this.repository.setStatus(scope, booking.id, 'cancelled', {
        cancelledAt: now,
        cancellationReason: reason,
        cancelledBy: actor.by,
        updatedAt: now,
      });
      Object.assign(booking, { status: 'cancelled', cancelledAt: now, cancellationReason: reason, cancelledBy: actor.by, updatedAt: now });
      const summary = await this.summaryOf(scope, booking);
      await this.record(scope, 'booking.cancelled', { booking: bookingDetailView(booking, hostUserIds, summary) });
      if (wasConfirmed) await this.writeBack.removed(scope, booking.id, hostUserIds);
      await this.sendMails(scope, 'cancellation', booking, { hostUserIds, title: summary.title, reason });
      return {
        booking: {
          id: booking.id,
          status: 'cancelled' as const,
          cancelledAt: now.toISOString(),
          cancellationReason: reason,
          cancelledBy: actor.by,
        },
      };
    });
  }

  async reschedule(
    principal: Principal | undefined,
    id: string,
    dto: RescheduleBookingDto,
    idempotencyKey: string | undefined,
    requestId: string,
  ): Promise<StoredResponse> {
    // The attendee brings no organization: the booking's own scope keys its Idempotency-Key.
    const scope = await this.scopeForAction(principal, id, dto.token);
    const fingerprint = fingerprintOf(`POST /v1/bookings/${id}/reschedule`, dto);
    return this.idempotency.run(scope, idempotencyKey, fingerprint, requestId, (complete) =>
      this.tx.transaction(() =>
        this.slots.writingTogether('newStartTime', async () => {
          const original = await this.lockForAction(principal, id, dto.token);
          const { booking } = original;
          this.assertChangeable(booking);
          const wasConfirmed = booking.status === 'confirmed';
          const timezone = dto.timezone ?? booking.timezone;
          const start = parseInputTimestamp(dto.newStartTime, timezone);
          if (start === null) throw AppError.validation('newStartTime', 'newStartTime must be a valid ISO 8601 timestamp');

          const { query, eventType } = await this.slots.lockAndLoad(scope, booking.eventTypeId, start, booking.id, original.hostUserIds);
          // Reschedule keeps the original host when it is free at the new time; round robin may reassign.
          const verdict = this.slots.verdict(query, start, booking.hostUserId);
          if (!verdict.available) throw slotUnavailable('newStartTime', verdict.reason);
          const hostUserIds = this.slots.occupiedHosts(query, verdict.hostUserId);

          const now = this.clock.now();
          const token = randomBase62(32);
          const replacement = Object.assign(new Booking(), {
            ...booking,
            id: newId('bkg'),
            status: booking.status === 'pending' ? 'pending' : 'confirmed',
            startsAt: new Date(start),
            endsAt: new Date(start + eventType.durationMinutes * MINUTE_MS),
            hostUserId: hostUserIds[0],
            timezone,
            locationType: eventType.locationType,
            location: eventType.location,
            bufferBeforeMinutes: eventType.bufferBeforeMinutes,
            bufferAfterMinutes: eventType.bufferAfterMinutes,
            confirmationTokenHash: sha256(token),
            previousBookingId: booking.id,
            rescheduledToBookingId: null,
            createdAt: now,
            updatedAt: now,
          } satisfies Booking);
          // The original's own time must not block the new one: free it first, in the same transaction.
          await this.repository.setStatus(scope, booking.id, 'cancelled', {
            cancelledAt: now,
            cancellationReason: 'rescheduled',
            cancelledBy: original.actor.by,
            rescheduledToBookingId: replacement.id,
            updatedAt: now,
          });
          Object.assign(booking, {
            status: 'cancelled',
            cancelledAt: now,
            cancellationReason: 'rescheduled',
            cancelledBy: original.actor.by,
            rescheduledToBookingId: replacement.id,
            updatedAt: now,
          });
          await this.slots.clearExpiredHolds(scope, hostUserIds);
          await this.repository.insert(scope, replacement, hostUserIds);

          if (wasConfirmed) await this.writeBack.removed(scope, booking.id, original.hostUserIds);
          if (replacement.status === 'confirmed')
            await this.writeBack.confirmed(scope, forCalendar(replacement, eventType.title), hostUserIds);
          await this.record(scope, 'booking.rescheduled', {
            booking: bookingDetailView(replacement, hostUserIds, eventType),
            previousBooking: bookingDetailView(booking, original.hostUserIds, eventType),
          });
          await this.sendMails(scope, 'reschedule', replacement, {
            hostUserIds,
            title: eventType.title,
            confirmationToken: token,
            reason: dto.reason ?? null,
            previousStartsAt: booking.startsAt,
          });
          const body = {
            booking: {
              id: replacement.id,
              previousBookingId: booking.id,
              startsAt: replacement.startsAt.toISOString(),
              endsAt: replacement.endsAt.toISOString(),
              status: replacement.status,
              hostUserId: replacement.hostUserId,
              confirmationToken: token,
            },
          };
          await complete(200, body);
          return { status: 200, body };
        }),
      ),
    );
  }

  confirm(principal: Principal, id: string, dto: DecisionDto): Promise<BookingResponse> {
    return this.decide(principal, id, dto, 'confirmed');
  }

  decline(principal: Principal, id: string, dto: DecisionDto): Promise<BookingResponse> {
    return this.decide(principal, id, dto, 'cancelled');
  }

  private async decide(principal: Principal, id: string, dto: DecisionDto, outcome: 'confirmed' | 'cancelled'): Promise<BookingResponse> {
    return this.tx.transaction(async () => {
      const { scope, booking, hostUserIds } = await this.lockForAction(principal, id, undefined);
      if (booking.status !== 'pending')
        throw new AppError(ErrorCode.BOOKING_NOT_PENDING, 'Only a pending booking can be confirmed or declined');
      const now = this.clock.now();
      const changes =
        outcome === 'confirmed'
          ? { updatedAt: now }
          : { updatedAt: now, cancelledAt: now, cancellationReason: dto.reason ?? null, cancelledBy: 'host' as const };
      await this.repository.setStatus(scope, booking.id, outcome, changes);
      Object.assign(booking, { status: outcome, ...changes });
      const summary = await this.summaryOf(scope, booking);
      const detail = bookingDetailView(booking, hostUserIds, summary);
      await this.record(scope, outcome === 'confirmed' ? 'booking.confirmed' : 'booking.declined', { booking: detail });
      if (outcome === 'confirmed') await this.writeBack.confirmed(scope, forCalendar(booking, summary.title), hostUserIds);
      await this.sendMails(scope, outcome === 'confirmed' ? 'confirmation' : 'cancellation', booking, {
        hostUserIds,
        title: summary.title,
        reason: dto.reason ?? null,
      });
      return { booking: detail };
    });
  }

  private async lockForAction(principal: Principal | undefined, id: string, token: string | undefined): Promise<LockedBooking> {
    // Neither credentials nor a token → 401, whatever the id (contract section 8).
    if (!principal && !token) throw noCredentials();
    if (!looksLikeId(id, 'bkg')) throw AppError.notFound('Booking');
    if (principal) {
      const scope = tenantScope(principal);
      const found = await this.repository.findForUpdate(scope, id);
      if (!found || !mayActOnBooking(principal, found.hostUserIds)) throw AppError.notFound('Booking');
      return { scope, ...found, actor: { by: 'host', principal } };
    }
    const scope = await this.attendeeScope(id, token);
    const found = await this.repository.findForUpdate(scope, id);
    if (!found) throw AppError.notFound('Booking');
    return { scope, ...found, actor: { by: 'attendee' } };
  }

  /** The scope an action works in: the caller's, or the booking's when the attendee's token opens it. */
  private async scopeForAction(principal: Principal | undefined, id: string, token: string | undefined): Promise<TenantScope> {
    if (principal) return tenantScope(principal);
    if (!token) throw noCredentials();
    if (!looksLikeId(id, 'bkg')) throw AppError.notFound('Booking');
    return this.attendeeScope(id, token);
  }

  private async attendeeScope(id: string, token: string | undefined): Promise<TenantScope> {
    if (!token) throw noCredentials();
    const scope = await this.lookups.bookingForAttendee(id, token);
    if (scope === null) throw AppError.notFound('Booking');
    if (scope === 'invalid') throw AppError.unauthorized('Invalid token for this booking');
    return scope;
  }

  private assertChangeable(booking: Booking): void {
    if (booking.status === 'cancelled') throw new AppError(ErrorCode.BOOKING_NOT_ACTIVE, 'The booking is cancelled');
    if (booking.startsAt.getTime() <= this.clock.now().getTime())
      throw new AppError(ErrorCode.BOOKING_IN_PAST, 'The booking has already started');
  }

  private async summaryOf(scope: TenantScope, booking: Booking): Promise<EventTypeSummary> {
    const summaries = await this.eventTypes.summaries(scope, [booking.eventTypeId]);
    return summaries.get(booking.eventTypeId)!;
  }

  private async record(scope: TenantScope, type: DomainEventType, data: Record<string, unknown>): Promise<void> {
    await this.events.record(scope, { type, data });
  }

  /** Test-mode bookings send no mail (contract section 9). */
  private async sendMails(scope: TenantScope, kind: BookingMailKind, booking: Booking, details: BookingMailDetails): Promise<void> {
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
    });
    for (const mail of mails) await this.mail.enqueue(scope, mail);
  }
}
