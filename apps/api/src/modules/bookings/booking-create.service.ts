import { Injectable } from '@nestjs/common';
import { explainSeries, parseInputTimestamp } from '@app/availability';
import { seriesStarts } from '@app/calendar';
import { AppError, Clock, ErrorCode, newId, type Principal, randomBase62, sha256, tenantScope, type TenantScope } from '@app/common';
import { TransactionHost } from '@app/database';
import { fingerprintOf, IdempotencyService, type StoredResponse } from '../idempotency/index.js';
import { checkAnswers } from './booking-answers.js';
import { BookingEffectsService } from './booking-effects.service.js';
import { attendeeBookingView } from './attendee-views.js';
import { bookingDetailView, bookingView } from './booking-views.js';
import { BookingsRepository } from './bookings.repository.js';
import { CreateBookingDto } from './dto/booking.dto.js';
import { Booking } from './entities/booking.entity.js';
import { BookingSeries } from './entities/booking-series.entity.js';
import { HoldsService } from './holds.service.js';
import { type LockedSlotQuery, SlotDecisionService, slotUnavailable } from './slot-decision.service.js';
import { type BookingVisitor, VisitorBookingsService } from './visitor-bookings.service.js';
import type { Hold } from './entities/hold.entity.js';
import { type EventTypeDetails, locationFor } from '../event-types/index.js';

const MINUTE_MS = 60_000;

/** Where a new booking goes: its event type, its hosts (the primary first), and what decided it. */
interface Decided {
  eventType: EventTypeDetails;
  hostUserIds: string[];
  /** The hold it takes the place of. */
  hold?: Hold;
  /** The slot query it was decided on, when no hold decided it. */
  loaded?: LockedSlotQuery;
}

/** Making a booking (POST /bookings, POST /public/bookings): the slot decision, the rows and what they cause, at once. */
@Injectable()
export class BookingCreateService {
  constructor(
    private readonly tx: TransactionHost,
    private readonly repository: BookingsRepository,
    private readonly slots: SlotDecisionService,
    private readonly holds: HoldsService,
    private readonly effects: BookingEffectsService,
    private readonly idempotency: IdempotencyService,
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
    const holdToken = publicRoute ? publicRoute.holdToken : undefined;
    const fingerprint = fingerprintOf(publicRoute ? 'POST /v1/public/bookings' : 'POST /v1/bookings', { ...dto, holdToken });
    // Read before any connection is held: the hosts this booking will lock, to queue for them here first.
    const hosts = await this.slots.hostsOf(scope, dto.eventTypeId);
    if (dto.recurrenceCount !== undefined) {
      const series = { count: dto.recurrenceCount, start, holdToken, visitor: publicRoute?.visitor };
      return this.slots.decide(scope, hosts, (locked) =>
        this.idempotency.run(scope, idempotencyKey, fingerprint, requestId, (complete) =>
          this.tx.transaction(() =>
            this.slots.writingTogether('startTime', () => this.createSeries(scope, dto, { ...series, hosts: locked }, complete)),
          ),
        ),
      );
    }
    return this.slots.decide(scope, hosts, (locked) =>
      this.idempotency.run(scope, idempotencyKey, fingerprint, requestId, (complete) =>
        this.tx.transaction(() =>
          this.slots.writingTogether('startTime', async () => {
            if (publicRoute) await this.visitors.admit(scope, publicRoute.visitor);
            const decided = await this.decide(scope, dto, start, locked, holdToken);
            const { eventType, hostUserIds } = decided;
            const { answers, problems } = checkAnswers(eventType.questions, dto.answers ?? {});
            if (problems.length > 0)
              throw new AppError(ErrorCode.VALIDATION_ERROR, 'The answers do not fit the event type’s questions', problems);
            const token = randomBase62(32);
            const booking = this.newBooking(scope, dto, eventType, start, hostUserIds, answers, token, decided.hold);
            if (decided.hold) {
              await this.repository.insertFromHold(scope, booking, decided.hold.id);
            } else {
              await this.slots.clearExpiredHolds(scope, decided.loaded!, hostUserIds);
              await this.repository.insert(scope, booking, hostUserIds, eventType.seatsPerSlot !== null);
            }
            if (publicRoute) await this.visitors.record(scope, publicRoute.visitor, booking.id);
            const detail = bookingDetailView(booking, hostUserIds, eventType);
            await this.effects.record(scope, 'booking.created', { booking: detail });
            if (booking.status === 'confirmed') await this.effects.nowConfirmed(scope, booking, eventType.title, hostUserIds);
            await this.effects.sendMails(scope, booking.status === 'pending' ? 'pending' : 'confirmation', booking, {
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

  /**
   * A recurring series (api-rules.md § Seats and series), all or nothing in the caller's transaction: under every host's
   * lock, each occurrence judged by the rules of a single booking (the window by the first only), one host for
   * all of them, then every row in one batch, where the exclusion constraint still has the last word on each.
   */
  private async createSeries(
    scope: TenantScope,
    dto: CreateBookingDto,
    request: { count: number; start: number; hosts: readonly string[]; holdToken: string | null | undefined; visitor?: BookingVisitor },
    complete: (status: number, body: unknown) => Promise<void>,
  ): Promise<{ status: number; body: unknown }> {
    // A visitor's series is one booking request (one mail) toward its hourly limit; the visitor's lock comes before the hosts'.
    if (request.visitor) await this.visitors.admit(scope, request.visitor);
    // A hold of the first occurrence gives its time back to the series' own decision, in this transaction.
    let heldId: string | null = null;
    if (dto.holdId !== undefined) {
      await this.slots.lock(scope, request.hosts);
      const taken = await this.holds.takeForBooking(scope, dto.holdId, dto.eventTypeId, request.start, request.holdToken);
      if (taken) {
        heldId = taken.hold.id;
        await this.holds.giveBack(scope, taken.hold.id);
      }
    }
    const loaded = await this.slots.lockAndLoadSeries(scope, dto.eventTypeId, request.hosts, heldId, (eventType) => {
      const recurrence = eventType.recurrence;
      if (recurrence === null) throw AppError.validation('recurrenceCount', 'This event type does not take recurring bookings');
      if (request.count > recurrence.maxCount) {
        throw AppError.validation('recurrenceCount', `recurrenceCount must not exceed the event type's maxCount (${recurrence.maxCount})`);
      }
      return seriesStarts(request.start, dto.timezone, {
        frequency: recurrence.frequency,
        interval: recurrence.interval,
        count: request.count,
      });
    });
    const { eventType, starts } = loaded;
    const verdict = explainSeries(loaded.query, starts);
    if (!verdict.available) {
      throw new AppError(
        ErrorCode.SLOT_UNAVAILABLE,
        'The requested series cannot be booked',
        verdict.refused.map(({ index, start, reason }) => ({
          field: 'startTime',
          message: `occurrence ${index + 1} at ${new Date(start).toISOString()}: ${reason}`,
        })),
      );
    }
    const { answers, problems } = checkAnswers(eventType.questions, dto.answers ?? {});
    if (problems.length > 0) throw new AppError(ErrorCode.VALIDATION_ERROR, 'The answers do not fit the event type’s questions', problems);
    const hostUserIds = this.slots.occupiedHosts(loaded.query, verdict.hostUserId);
    const token = randomBase62(32);
    const series = Object.assign(new BookingSeries(), {
      id: newId('ser'),
      organizationId: scope.organizationId,
      livemode: scope.livemode,
      eventTypeId: eventType.id,
      frequency: eventType.recurrence!.frequency,
      interval: eventType.recurrence!.interval,
      count: starts.length,
      tokenHash: sha256(token),
      timezone: dto.timezone,
      createdAt: this.clock.now(),
    } satisfies BookingSeries);
    const bookings = starts.map((start, index) =>
      Object.assign(this.newBooking(scope, dto, eventType, start, hostUserIds, answers, token), {
        seriesId: series.id,
        occurrence: index + 1,
      }),
    );
    await this.slots.clearExpiredHolds(scope, loaded, hostUserIds);
    await this.repository.insertSeries(scope, series);
    await this.repository.insertMany(scope, bookings, hostUserIds);
    if (request.visitor) await this.visitors.record(scope, request.visitor, bookings[0].id);
    await this.effects.recordEach(
      scope,
      'booking.created',
      bookings.map((booking) => ({ booking: bookingDetailView(booking, hostUserIds, eventType) })),
    );
    const confirmed = bookings.filter((booking) => booking.status === 'confirmed');
    await this.effects.allNowConfirmed(scope, confirmed, eventType.title, hostUserIds);
    await this.effects.sendSeriesMails(scope, bookings[0].status === 'pending' ? 'pending' : 'confirmation', bookings, {
      hostUserIds,
      title: eventType.title,
      confirmationToken: token,
    });
    const first = bookings[0];
    const body = {
      booking: request.visitor ? attendeeBookingView(first, token) : { ...bookingView(first, hostUserIds), confirmationToken: token },
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
    await complete(201, body);
    return { status: 201, body };
  }

  /** A new booking's row, as every path makes it. */
  private newBooking(
    scope: TenantScope,
    dto: CreateBookingDto,
    eventType: EventTypeDetails,
    start: number,
    hostUserIds: readonly string[],
    answers: Booking['answers'],
    token: string,
    hold?: Hold,
  ): Booking {
    const now = this.clock.now();
    const id = newId('bkg');
    return Object.assign(new Booking(), {
      id,
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
      location: locationFor(eventType.location, id),
      notes: dto.notes ?? null,
      metadata: dto.metadata ?? {},
      answers,
      // Through a hold, the buffers it was granted with (and blocked with).
      bufferBeforeMinutes: hold?.bufferBeforeMinutes ?? eventType.bufferBeforeMinutes,
      bufferAfterMinutes: hold?.bufferAfterMinutes ?? eventType.bufferAfterMinutes,
      confirmationTokenHash: sha256(token),
      cancelledAt: null,
      cancellationReason: null,
      cancelledBy: null,
      previousBookingId: null,
      rescheduledToBookingId: null,
      seriesId: null,
      occurrence: null,
      noShowAttendee: false,
      noShowHost: false,
      createdAt: now,
      updatedAt: now,
    } satisfies Booking);
  }

  /**
   * Who the booking goes to, under the hosts' locks. Through a live hold of this event type and start, the hold's
   * host(s): the hold already holds the time under the exclusion constraint and was granted by every slot rule,
   * so it never makes its own booking fail, and the time needs no second decision. Otherwise the slot engine's
   * verdict on what was read under the locks.
   */
  private async decide(
    scope: TenantScope,
    dto: CreateBookingDto,
    start: number,
    hosts: readonly string[],
    holdToken: string | null | undefined,
  ): Promise<Decided> {
    if (dto.holdId !== undefined) {
      await this.slots.lock(scope, hosts);
      const taken = await this.holds.takeForBooking(scope, dto.holdId, dto.eventTypeId, start, holdToken);
      if (taken) {
        // A hold may outlive its start (a short notice, a long hold): the meeting has begun, too late to book it.
        if (start <= this.clock.now().getTime()) throw slotUnavailable('startTime', 'in_the_past');
        // The hold's hosts were read under the locks: any outside them (the event type's hosts changed) restart the decision.
        this.slots.assertLocked(taken.hostUserIds, hosts);
        return { eventType: await this.slots.eventTypeOf(scope, dto.eventTypeId), hostUserIds: taken.hostUserIds, hold: taken.hold };
      }
    }
    const loaded = await this.slots.lockAndLoad(scope, dto.eventTypeId, start, null, hosts);
    const verdict = this.slots.verdict(loaded.query, start);
    if (!verdict.available) throw slotUnavailable('startTime', verdict.reason);
    return { eventType: loaded.eventType, hostUserIds: this.slots.occupiedHosts(loaded.query, verdict.hostUserId), loaded };
  }
}
