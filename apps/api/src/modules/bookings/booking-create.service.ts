import { Injectable } from '@nestjs/common';
import { parseInputTimestamp } from '@app/availability';
import { AppError, Clock, ErrorCode, newId, type Principal, randomBase62, sha256, tenantScope } from '@app/common';
import { TransactionHost } from '@app/database';
import { fingerprintOf, IdempotencyService, type StoredResponse } from '../idempotency/index.js';
import { checkAnswers } from './booking-answers.js';
import { BookingEffectsService } from './booking-effects.service.js';
import { attendeeBookingView, bookingDetailView, bookingView } from './booking-views.js';
import { BookingsRepository } from './bookings.repository.js';
import { CreateBookingDto } from './dto/booking.dto.js';
import { Booking } from './entities/booking.entity.js';
import { HoldsService } from './holds.service.js';
import { SlotDecisionService, slotUnavailable } from './slot-decision.service.js';

const MINUTE_MS = 60_000;

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
            await this.effects.record(scope, 'booking.created', { booking: detail });
            if (booking.status === 'confirmed') await this.effects.toCalendars(scope, booking, eventType.title, hostUserIds);
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

  /** GET /public/bookings/:id with the attendee's token: what a "manage your booking" page shows. Any failure → 401. */
}
