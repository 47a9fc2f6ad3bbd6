import { Injectable } from '@nestjs/common';
import { parseInputTimestamp } from '@app/availability';
import { seriesStarts } from '@app/calendar';
import { AppError, Clock, ErrorCode, newId, type Principal, randomBase62, sha256, tenantScope, type TenantScope } from '@app/common';
import {
  type BookingAnswer,
  type BookingRecord,
  BookingRows,
  checkAnswers,
  CreateBookingDto,
  type Decision,
  type HoldRecord,
  HoldRows,
  SlotDecisionService,
  slotUnavailable,
} from '../booking-core/index.js';
import type { EventTypeDetails } from '../event-types/index.js';
import { HoldsService } from '../holds/index.js';
import { fingerprintOf, type StoredResponse } from '../idempotency/index.js';
import { attendeeBookingView, BookingEffectsService, bookingDetailView, bookingView } from '../booking-effects/index.js';
import { BookingRemindersService } from '../booking-reminders/index.js';
import { BookingSeriesRepository } from './booking-series.repository.js';
import { BookingSeries } from './entities/booking-series.entity.js';
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
    private readonly seriesRows: BookingSeriesRepository,
    private readonly effects: BookingEffectsService,
    private readonly reminders: BookingRemindersService,
    private readonly visitors: VisitorBookingsService,
    private readonly clock: Clock,
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
    };
    return this.slots.writeOnce(scope, write, (locked) =>
      dto.recurrenceCount === undefined ? this.createOne(scope, request, locked) : this.createSeries(scope, request, locked),
    );
  }

  /** One booking, under the `locked` hosts. */
  private async createOne(
    scope: TenantScope,
    request: CreateRequest,
    locked: readonly string[],
  ): Promise<{ status: number; body: unknown }> {
    const { dto, start, visitor } = request;
    // The visitor's lock comes before the hosts'.
    if (visitor) await this.visitors.admit(scope, visitor);
    const decided = await this.decideOne(scope, request, locked);
    const { eventType, hostUserIds } = decided;
    const answers = this.answersFor(eventType, dto);
    const token = randomBase62(32);
    const booking = this.rows.newBooking(scope, dto, eventType, start, hostUserIds, answers, token, decided.hold);

    if (decided.hold) {
      await this.rows.insertFromHold(scope, booking, decided.hold.id);
    } else {
      await this.holdRows.clearExpired(scope, decided);
      await this.rows.insert(scope, booking, hostUserIds, eventType.seatsPerSlot !== null);
    }
    if (visitor) await this.visitors.record(scope, visitor, booking.id);

    await this.effects.record(scope, 'booking.created', { booking: bookingDetailView(booking, hostUserIds, eventType) });
    if (booking.status === 'confirmed') {
      await this.effects.nowConfirmed(scope, booking, eventType.title, hostUserIds);
      await this.reminders.confirmed(scope, [booking]);
    }
    await this.effects.sendMails(scope, booking.status === 'pending' ? 'pending' : 'confirmation', booking, {
      hostUserIds,
      title: eventType.title,
      confirmationToken: token,
    });

    const body = visitor
      ? { booking: attendeeBookingView(booking, token) }
      : { booking: { ...bookingView(booking, hostUserIds), confirmationToken: token } };
    return { status: 201, body };
  }

  /**
   * Who the booking goes to, under the hosts' locks. Through a live hold of this event type and start, the hold's
   * host(s): the hold already holds the time under the exclusion constraint and was granted by every slot rule,
   * so it never makes its own booking fail, and the time needs no second decision. Otherwise the slot decision.
   */
  private async decideOne(scope: TenantScope, request: CreateRequest, locked: readonly string[]): Promise<SingleDecision> {
    const { dto, start } = request;
    if (dto.holdId !== undefined) {
      await this.slots.lock(scope, locked);
      const taken = await this.holds.takeForBooking(scope, dto.holdId, dto.eventTypeId, start, request.holdToken);
      if (taken) {
        // A hold may outlive its start (a short notice, a long hold): the meeting has begun, too late to book it.
        if (start <= this.clock.now().getTime()) throw slotUnavailable('startTime', 'in_the_past');
        // The hold's hosts were read under the locks: any outside them (the event type's hosts changed) restart the write.
        this.slots.assertLocked(taken.hostUserIds, locked);
        const eventType = await this.slots.eventTypeOf(scope, dto.eventTypeId);
        return { eventType, hostUserIds: taken.hostUserIds, expiredHolds: false, hold: taken.hold };
      }
    }
    await this.slots.lock(scope, locked);
    return this.slots.decide(scope, dto.eventTypeId, start, locked, { field: 'startTime' });
  }

  /**
   * A recurring series (api-rules.md § Seats and series), all or nothing: every occurrence judged by the rules of a
   * single booking (the window by the first only), one host for all of them, then every row in the write's one batch,
   * where the exclusion constraint still has the last word on each.
   */
  private async createSeries(
    scope: TenantScope,
    request: CreateRequest,
    locked: readonly string[],
  ): Promise<{ status: number; body: unknown }> {
    const { dto, visitor } = request;
    // A visitor's series is one booking request (one mail) toward its hourly limit; the visitor's lock comes before the hosts'.
    if (visitor) await this.visitors.admit(scope, visitor);
    const decided = await this.decideSeries(scope, request, locked);
    const { eventType, hostUserIds } = decided;
    const answers = this.answersFor(eventType, dto);
    const token = randomBase62(32);
    const series = Object.assign(new BookingSeries(), {
      id: newId('ser'),
      organizationId: scope.organizationId,
      livemode: scope.livemode,
      eventTypeId: eventType.id,
      frequency: eventType.recurrence!.frequency,
      interval: eventType.recurrence!.interval,
      count: decided.starts.length,
      tokenHash: sha256(token),
      timezone: dto.timezone,
      createdAt: this.clock.now(),
    } satisfies BookingSeries);
    const bookings: BookingRecord[] = decided.starts.map((start, index) => ({
      ...this.rows.newBooking(scope, dto, eventType, start, hostUserIds, answers, token),
      seriesId: series.id,
      occurrence: index + 1,
    }));

    await this.holdRows.clearExpired(scope, decided);
    await this.seriesRows.insertSeries(scope, series);
    await this.rows.insertMany(scope, bookings, hostUserIds);
    if (visitor) await this.visitors.record(scope, visitor, bookings[0].id);

    await this.effects.recordEach(
      scope,
      'booking.created',
      bookings.map((booking) => ({ booking: bookingDetailView(booking, hostUserIds, eventType) })),
    );
    const confirmed = bookings.filter((booking) => booking.status === 'confirmed');
    await this.effects.allNowConfirmed(scope, confirmed, eventType.title, hostUserIds);
    await this.reminders.confirmed(scope, confirmed);
    await this.effects.sendSeriesMails(scope, bookings[0].status === 'pending' ? 'pending' : 'confirmation', bookings, {
      hostUserIds,
      title: eventType.title,
      confirmationToken: token,
    });

    const first = bookings[0];
    const body = {
      booking: visitor ? attendeeBookingView(first, token) : { ...bookingView(first, hostUserIds), confirmationToken: token },
      series: {
        id: series.id,
        count: series.count,
        bookings: bookings.map((booking) => ({
          id: booking.id,
          startsAt: booking.startsAt.toISOString(),
          endsAt: booking.endsAt.toISOString(),
          status: booking.status,
        })),
      },
    };
    return { status: 201, body };
  }

  /** The series' starts and its decision, under the hosts' locks. */
  private async decideSeries(
    scope: TenantScope,
    request: CreateRequest,
    locked: readonly string[],
  ): Promise<Decision & { starts: number[] }> {
    const { dto, start } = request;
    // A hold of the first occurrence gives its time back to the series' own decision, in this transaction.
    let heldId: string | null = null;
    if (dto.holdId !== undefined) {
      await this.slots.lock(scope, locked);
      const taken = await this.holds.takeForBooking(scope, dto.holdId, dto.eventTypeId, start, request.holdToken);
      if (taken) {
        heldId = taken.hold.id;
        await this.holds.giveBack(scope, taken.hold.id);
      }
    }
    await this.slots.lock(scope, locked);
    const eventType = await this.slots.eventTypeOf(scope, dto.eventTypeId);
    const recurrence = eventType.recurrence;
    if (recurrence === null) throw AppError.validation('recurrenceCount', 'This event type does not take recurring bookings');
    const count = dto.recurrenceCount!;
    if (count > recurrence.maxCount) {
      throw AppError.validation('recurrenceCount', `recurrenceCount must not exceed the event type's maxCount (${recurrence.maxCount})`);
    }
    const starts = seriesStarts(start, dto.timezone, { frequency: recurrence.frequency, interval: recurrence.interval, count });
    return { ...(await this.slots.decideSeries(scope, eventType, starts, locked, heldId)), starts };
  }

  /** The answers as the booking keeps them; 400 naming each one that does not fit the event type's questions. */
  private answersFor(eventType: EventTypeDetails, dto: CreateBookingDto): BookingAnswer[] {
    const { answers, problems } = checkAnswers(eventType.questions, dto.answers ?? {});
    if (problems.length > 0) throw new AppError(ErrorCode.VALIDATION_ERROR, 'The answers do not fit the event type’s questions', problems);
    return answers;
  }
}
