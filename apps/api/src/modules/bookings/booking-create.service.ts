import { Injectable } from '@nestjs/common';
import { parseInputTimestamp } from '@app/availability';
import { AppError, Clock, type Principal, randomBase62, tenantScope, type TenantScope } from '@app/common';
import { acceptedAnswers, type BookingRecord, BookingRows, CreateBookingDto, type HoldRecord, HoldRows } from '../booking-core/index.js';
import { HoldsService } from '../holds/index.js';
import { fingerprintOf, type StoredResponse } from '../idempotency/index.js';
import { attendeeBookingView, BookingEffectsService, bookingDetailView, bookingView, type Contact } from '../booking-effects/index.js';
import { BookingRemindersService } from '../booking-reminders/index.js';
import { BookingSeriesService } from '../booking-series/index.js';
import { RoutedBookingsService, type Routing, routedAnswers, ROUTING_RESPONSE_FIELD } from '../routing-forms/index.js';
import { type Decision, SlotDecisionService, slotUnavailable } from '../slot-decision/index.js';
import { type BookingVisitor, VisitorBookingsService } from './visitor-bookings.service.js';

/** What POST /bookings asks for, parsed: the time, and for a publishable key the hold's token and the visitor. */
interface CreateRequest {
  dto: CreateBookingDto;
  start: number;
  /** A publishable key's booking must open its hold with this token; undefined: a secret key's (no token needed). */
  holdToken: string | null | undefined;
  visitor?: BookingVisitor;
}

/** A single booking's decision: the slot decision's, or its hold's (which needs none). */
interface SingleDecision extends Decision {
  /** The hold it takes the place of. */
  hold?: HoldRecord;
  /** The routing response it is booked through (contract § 22), locked: the booking links it. */
  routing: Routing | null;
}

/**
 * Making a booking (POST /bookings, POST /public/bookings): inside one write under the hosts' locks, it decides, writes
 * the rows, hands off what they cause (event, mails, write-back, reminders) and answers; each step once, in this order.
 */
@Injectable()
export class BookingCreateService {
  constructor(
    private readonly slots: SlotDecisionService,
    private readonly rows: BookingRows,
    private readonly holdRows: HoldRows,
    private readonly holds: HoldsService,
    private readonly series: BookingSeriesService,
    private readonly effects: BookingEffectsService,
    private readonly reminders: BookingRemindersService,
    private readonly visitors: VisitorBookingsService,
    private readonly clock: Clock,
    private readonly routed: RoutedBookingsService,
  ) {}

  async create(
    principal: Principal,
    dto: CreateBookingDto,
    idempotencyKey: string | undefined,
    requestId: string,
    /**
     * POST /public/bookings (api-rules.md § Browser booking): the hold's token is required, the visitor's hourly limit
     * applies, and the answer is the attendee's view.
     */
    publicRoute?: { holdToken: string | null; visitor: BookingVisitor },
  ): Promise<StoredResponse> {
    const start = parseInputTimestamp(dto.startTime, dto.timezone);
    if (start === null) throw AppError.validation('startTime', 'startTime must be a valid ISO 8601 timestamp');
    if (dto.routingResponseId !== undefined && dto.recurrenceCount !== undefined) {
      throw AppError.validation(ROUTING_RESPONSE_FIELD, 'A routing response routes one booking, not a series (recurrenceCount)');
    }
    const scope = tenantScope(principal);
    const request: CreateRequest = {
      dto,
      start,
      holdToken: publicRoute ? publicRoute.holdToken : undefined,
      visitor: publicRoute?.visitor,
    };
    const write = {
      // Read before any connection is held: the hosts this booking will lock, to queue for them here first.
      hosts: await this.slots.hostsOf(scope, dto.eventTypeId),
      field: 'startTime' as const,
      key: idempotencyKey,
      fingerprint: fingerprintOf(publicRoute ? 'POST /v1/public/bookings' : 'POST /v1/bookings', { ...dto, holdToken: request.holdToken }),
      requestId,
      readErased: (bookingId: string) => this.erasedView(scope, bookingId, publicRoute !== undefined),
    };
    return this.slots.writeOnce(scope, write, (locked) =>
      dto.recurrenceCount === undefined ? this.createOne(scope, request, locked) : this.createSeries(scope, request, locked),
    );
  }

  /**
   * A replay of the key that made a booking whose attendee was since erased (contract § 18): the booking as it now
   * stands, as the route shows it (the attendee's view for a publishable key), without its confirmation token.
   */
  private async erasedView(scope: TenantScope, bookingId: string, attendeeView: boolean): Promise<unknown> {
    const found = await this.rows.find(scope, bookingId);
    if (!found) throw AppError.notFound('Booking');
    const summary = await this.effects.summaryOf(scope, found.booking);
    return attendeeView ? attendeeBookingView(found.booking, summary) : bookingView(found.booking, found.hostUserIds, summary);
  }

  /** One booking, under the `locked` hosts: decide, write, hand off, answer. */
  private async createOne(
    scope: TenantScope,
    request: CreateRequest,
    locked: readonly string[],
  ): Promise<{ status: number; body: unknown }> {
    const { visitor } = request;
    // The visitor's lock comes before the hosts'.
    if (visitor) await this.visitors.admit(scope, visitor);
    const decided = await this.decideOne(scope, request, locked);
    // Every read before the first write: the writes then leave together, in one round trip (SlotDecision's write).
    const contacts = await this.effects.contactsFor(scope, decided.hostUserIds, decided.hostContacts);
    const { booking, token } = await this.writeOne(scope, request, decided);
    if (visitor) await this.visitors.record(scope, visitor, booking.id);
    await this.handOffOne(scope, booking, token, decided, contacts);

    const body = visitor
      ? { booking: attendeeBookingView(booking, decided.eventType, token) }
      : { booking: { ...bookingView(booking, decided.hostUserIds, decided.eventType), confirmationToken: token } };
    return { status: 201, body };
  }

  /**
   * Who the booking goes to, under the hosts' locks. Through a live hold of this event type and start, the hold's
   * host(s): the hold already holds the time under the exclusion constraint and was granted by every slot rule,
   * so it never makes its own booking fail, and the time needs no second decision. Otherwise the slot decision.
   */
  private async decideOne(scope: TenantScope, request: CreateRequest, locked: readonly string[]): Promise<SingleDecision> {
    const { dto, start } = request;
    await this.slots.lock(scope, locked);
    // A routed booking (contract § 22) locks its response after the hosts: a second booking through it waits, then is refused.
    const routing =
      dto.routingResponseId === undefined ? null : await this.routed.forBooking(scope, dto.routingResponseId, dto.eventTypeId);
    if (dto.holdId !== undefined) {
      const taken = await this.holds.takeForBooking(scope, dto.holdId, dto.eventTypeId, start, request.holdToken);
      if (taken) {
        // A hold may outlive its start (a short notice, a long hold): the meeting has begun, too late to book it.
        if (start <= this.clock.now().getTime()) throw slotUnavailable('startTime', 'in_the_past');
        const routedHosts = routing?.hostUserIds ?? null;
        if (routedHosts !== null && taken.hostUserIds.some((userId) => !routedHosts.includes(userId))) {
          throw slotUnavailable('startTime', 'not_routed');
        }
        // The hold's hosts were read under the locks: any outside them (the event type's hosts changed) restart the write.
        this.slots.assertLocked(taken.hostUserIds, locked);
        const eventType = await this.slots.eventTypeOf(scope, dto.eventTypeId);
        return { eventType, hostUserIds: taken.hostUserIds, expiredHolds: false, hold: taken.hold, routing };
      }
    }
    // In live mode the decision reads the hosts' contacts with their slot data (the mails need them, test mode sends none).
    const decided = await this.slots.decide(scope, dto.eventTypeId, start, locked, {
      field: 'startTime',
      withContacts: scope.livemode,
      routedHosts: routing?.hostUserIds,
    });
    return { ...decided, routing };
  }

  /**
   * The booking's rows: through its hold, the hold's occupancy becomes the booking's in one statement; otherwise the
   * expired holds of its hosts go first, then the booking and its hosts' rows.
   */
  private async writeOne(
    scope: TenantScope,
    request: CreateRequest,
    decided: SingleDecision,
  ): Promise<{ booking: BookingRecord; token: string }> {
    const { dto, start } = request;
    const { eventType, hostUserIds } = decided;
    const answers = acceptedAnswers(eventType.questions, routedAnswers(eventType.questions, dto.answers, decided.routing));
    const token = randomBase62(32);
    const booking = this.rows.newBooking(scope, dto, eventType, start, hostUserIds, answers, token, decided.hold);
    if (decided.hold) {
      await this.rows.insertFromHold(scope, booking, decided.hold.id);
    } else {
      await this.holdRows.clearExpired(scope, decided);
      await this.rows.insert(scope, booking, hostUserIds, eventType.seatsPerSlot !== null);
    }
    if (decided.routing) await this.routed.claim(scope, decided.routing, booking.id);
    return { booking, token };
  }

  /** What the booking causes: `booking.created`, and once confirmed the hosts' calendars and its reminders; the mails. */
  private async handOffOne(
    scope: TenantScope,
    booking: BookingRecord,
    token: string,
    decided: SingleDecision,
    contacts: ReadonlyMap<string, Contact> | undefined,
  ): Promise<void> {
    const { eventType, hostUserIds } = decided;
    await this.effects.record(scope, 'booking.created', { booking: bookingDetailView(booking, hostUserIds, eventType) });
    if (booking.status === 'confirmed') {
      await this.effects.nowConfirmed(scope, booking, eventType.title, hostUserIds);
      await this.reminders.confirmed(scope, [booking]);
    }
    await this.effects.sendMails(scope, booking.status === 'pending' ? 'pending' : 'confirmation', booking, {
      hostUserIds,
      title: eventType.title,
      confirmationToken: token,
      contacts,
    });
  }

  /**
   * A recurring series (api-rules.md § Seats and series), all or nothing, under the `locked` hosts: the series module
   * decides every occurrence, writes them and hands off what they cause; the visitor counts the series once.
   */
  private async createSeries(
    scope: TenantScope,
    request: CreateRequest,
    locked: readonly string[],
  ): Promise<{ status: number; body: unknown }> {
    const { visitor } = request;
    // A visitor's series is one booking request (one mail) toward its hourly limit; the visitor's lock comes before the hosts'.
    if (visitor) await this.visitors.admit(scope, visitor);
    const decided = await this.series.decide(scope, request, locked);
    const written = await this.series.write(scope, request.dto, decided);
    if (visitor) await this.visitors.record(scope, visitor, written.bookings[0].id);
    await this.series.handOff(scope, written, decided);

    const first = written.bookings[0];
    const booking = visitor
      ? attendeeBookingView(first, decided.eventType, written.token)
      : { ...bookingView(first, decided.occurrenceHosts[0], decided.eventType), confirmationToken: written.token };
    return { status: 201, body: { booking, series: this.series.view(written) } };
  }
}
