import { Injectable } from '@nestjs/common';
import { parseInputTimestamp } from '@app/availability';
import {
  AppError,
  Clock,
  ErrorCode,
  looksLikeId,
  newId,
  type Principal,
  randomBase62,
  sha256,
  tenantScope,
  type TenantScope,
} from '@app/common';
import { TransactionHost } from '@app/database';
import { GlobalLookups } from '../global-lookups/index.js';
import { fingerprintOf, IdempotencyService, type StoredResponse } from '../idempotency/index.js';
import { mayActOnBooking } from './booking-access.js';
import { BookingEffectsService } from './booking-effects.service.js';
import { attendeeBookingView, attendeeCancelledView, attendeeRescheduledView } from './attendee-views.js';
import { bookingDetailView, cancelledView, rescheduledView } from './booking-views.js';
import { BookingsRepository } from './bookings.repository.js';
import {
  BookingResponse,
  CancelBookingDto,
  CancelledBookingResponse,
  DecisionDto,
  NoShowDto,
  PublicBookingResponse,
  RescheduleBookingDto,
} from './dto/booking.dto.js';
import { Booking, type CancelledBy } from './entities/booking.entity.js';
import { locationFor } from '../event-types/index.js';
import { SlotDecisionService, slotUnavailable } from './slot-decision.service.js';

const MINUTE_MS = 60_000;

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

/**
 * Changing a booking: cancel, reschedule, confirm and decline, by a host (credentials) or the attendee (its
 * token), each in one transaction with the booking row locked.
 */
@Injectable()
export class BookingChangesService {
  constructor(
    private readonly tx: TransactionHost,
    private readonly repository: BookingsRepository,
    private readonly slots: SlotDecisionService,
    private readonly lookups: GlobalLookups,
    private readonly effects: BookingEffectsService,
    private readonly idempotency: IdempotencyService,
    private readonly clock: Clock,
  ) {}

  /**
   * Cancels the booking; with `scope: "following"` on an occurrence of a series, also every later active
   * occurrence (api-rules.md § Seats and series), each locked, in this one transaction, with one mail for them all.
   */
  async cancel(principal: Principal | undefined, id: string, dto: CancelBookingDto): Promise<CancelledBookingResponse> {
    return this.tx.transaction(async () => {
      const { scope, booking, hostUserIds, actor } = await this.lockForAction(principal, id, dto.token);
      this.assertChangeable(booking);
      const following =
        dto.scope === 'following' && booking.seriesId !== null
          ? await this.repository.laterActiveForUpdate(scope, booking.seriesId, booking.startsAt)
          : [];
      const cancelled = [{ booking, hostUserIds }, ...following];
      const now = this.clock.now();
      const reason = dto.reason ?? null;
      const changes = { cancelledAt: now, cancellationReason: reason, cancelledBy: actor.by, updatedAt: now };
      const summary = await this.effects.summaryOf(scope, booking);
      // Rows, events, calendar removals and the mail leave together in one round trip, however many occurrences.
      await this.tx.batched(async () => {
        await this.repository.cancelMany(
          scope,
          cancelled.map((occurrence) => occurrence.booking.id),
          changes,
        );
        const wereConfirmed = cancelled
          .filter((occurrence) => occurrence.booking.status === 'confirmed')
          .map((occurrence) => ({ bookingId: occurrence.booking.id, hostUserIds: occurrence.hostUserIds }));
        for (const occurrence of cancelled) {
          Object.assign(occurrence.booking, { status: 'cancelled', ...changes });
          await this.effects.record(scope, 'booking.cancelled', {
            booking: bookingDetailView(occurrence.booking, occurrence.hostUserIds, summary),
          });
        }
        await this.effects.allNoLongerConfirmed(scope, wereConfirmed);
        await this.effects.sendSeriesMails(
          scope,
          'cancellation',
          cancelled.map((occurrence) => occurrence.booking),
          { hostUserIds, title: summary.title, reason },
        );
      });
      return {
        booking: actor.by === 'attendee' ? attendeeCancelledView(booking) : cancelledView(booking),
        ...(dto.scope === 'following' ? { cancelledBookingIds: cancelled.map((occurrence) => occurrence.booking.id) } : {}),
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
    // Read before any connection is held: the hosts this reschedule will lock (the booking's and its event type's), to
    // queue for them here and lock them before the booking's row, in the order every booking takes them.
    const hosts = await this.hostsToLock(scope, id);
    return this.slots.decide(scope, hosts, (locked) =>
      this.idempotency.run(scope, idempotencyKey, fingerprint, requestId, (complete) =>
        this.tx.transaction(() =>
          this.slots.writingTogether('newStartTime', async () => {
            await this.slots.lock(scope, locked);
            const original = await this.lockForAction(principal, id, dto.token);
            const { booking } = original;
            this.assertChangeable(booking);
            this.slots.assertLocked(original.hostUserIds, locked);
            const wasConfirmed = booking.status === 'confirmed';
            const timezone = dto.timezone ?? booking.timezone;
            const start = parseInputTimestamp(dto.newStartTime, timezone);
            if (start === null) throw AppError.validation('newStartTime', 'newStartTime must be a valid ISO 8601 timestamp');

            const loaded = await this.slots.loadLocked(scope, booking.eventTypeId, start, booking.id, locked);
            const { query, eventType } = loaded;
            // Reschedule keeps the original host when it is free at the new time; round robin may reassign.
            const verdict = this.slots.verdict(query, start, booking.hostUserId);
            if (!verdict.available) throw slotUnavailable('newStartTime', verdict.reason);
            const hostUserIds = this.slots.occupiedHosts(query, verdict.hostUserId);

            const now = this.clock.now();
            const token = randomBase62(32);
            const replacementId = newId('bkg');
            const replacement = Object.assign(new Booking(), {
              ...booking,
              id: replacementId,
              status: booking.status === 'pending' ? 'pending' : 'confirmed',
              startsAt: new Date(start),
              endsAt: new Date(start + eventType.durationMinutes * MINUTE_MS),
              hostUserId: hostUserIds[0],
              timezone,
              locationType: eventType.locationType,
              location: locationFor(eventType.location, replacementId),
              bufferBeforeMinutes: eventType.bufferBeforeMinutes,
              bufferAfterMinutes: eventType.bufferAfterMinutes,
              confirmationTokenHash: sha256(token),
              previousBookingId: booking.id,
              rescheduledToBookingId: null,
              noShowAttendee: false,
              noShowHost: false,
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
            await this.slots.clearExpiredHolds(scope, loaded, hostUserIds);
            await this.repository.insert(scope, replacement, hostUserIds, eventType.seatsPerSlot !== null);

            if (wasConfirmed) await this.effects.noLongerConfirmed(scope, booking.id, original.hostUserIds);
            if (replacement.status === 'confirmed') await this.effects.nowConfirmed(scope, replacement, eventType.title, hostUserIds);
            await this.effects.record(scope, 'booking.rescheduled', {
              booking: bookingDetailView(replacement, hostUserIds, eventType),
              previousBooking: bookingDetailView(booking, original.hostUserIds, eventType),
            });
            await this.effects.sendMails(scope, 'reschedule', replacement, {
              hostUserIds,
              title: eventType.title,
              confirmationToken: token,
              reason: dto.reason ?? null,
              previousStartsAt: booking.startsAt,
            });
            const body = {
              booking: original.actor.by === 'attendee' ? attendeeRescheduledView(replacement, token) : rescheduledView(replacement, token),
            };
            await complete(200, body);
            return { status: 200, body };
          }),
        ),
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
      const summary = await this.effects.summaryOf(scope, booking);
      const detail = bookingDetailView(booking, hostUserIds, summary);
      await this.effects.record(scope, outcome === 'confirmed' ? 'booking.confirmed' : 'booking.declined', { booking: detail });
      if (outcome === 'confirmed') await this.effects.nowConfirmed(scope, booking, summary.title, hostUserIds);
      await this.effects.sendMails(scope, outcome === 'confirmed' ? 'confirmation' : 'cancellation', booking, {
        hostUserIds,
        title: summary.title,
        reason: dto.reason ?? null,
      });
      return { booking: detail };
    });
  }

  /**
   * Marks who did not come, or takes the mark back (api-rules.md § Reminders): host credentials for either party, the
   * attendee's token for the host only; only on a confirmed booking whose meeting has started. `booking.no_show` goes
   * out when a mark turns true.
   */
  async markNoShow(principal: Principal | undefined, id: string, dto: NoShowDto): Promise<BookingResponse | PublicBookingResponse> {
    return this.tx.transaction(async () => {
      const { scope, booking, hostUserIds, actor } = await this.lockForAction(principal, id, dto.token);
      if (actor.by === 'attendee' && dto.party !== 'host') throw AppError.forbidden('The attendee’s token may mark only the host');
      if (booking.status !== 'confirmed') {
        const why = booking.status === 'pending' ? 'The booking is not confirmed' : 'The booking is cancelled';
        throw new AppError(ErrorCode.BOOKING_NOT_ACTIVE, why);
      }
      const now = this.clock.now();
      if (booking.startsAt.getTime() > now.getTime()) throw new AppError(ErrorCode.BOOKING_NOT_STARTED, 'The meeting has not started yet');
      const noShow = dto.noShow ?? true;
      const changed = await this.repository.markNoShow(scope, booking.id, dto.party, noShow, now);
      if (changed)
        Object.assign(booking, dto.party === 'attendee' ? { noShowAttendee: noShow } : { noShowHost: noShow }, { updatedAt: now });
      const detail = bookingDetailView(booking, hostUserIds, await this.effects.summaryOf(scope, booking));
      if (changed && noShow) await this.effects.record(scope, 'booking.no_show', { booking: detail, party: dto.party });
      // The attendee's token gets the attendee's view, never the host's (api-rules.md § Browser booking).
      return { booking: actor.by === 'attendee' ? attendeeBookingView(booking) : detail };
    });
  }

  private async lockForAction(principal: Principal | undefined, id: string, token: string | undefined): Promise<LockedBooking> {
    // Neither credentials nor a token → 401, whatever the id (api-rules.md § Bookings).
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

  /**
   * The hosts a reschedule of `id` locks: the booking's own and its event type's (who may take it at the new time).
   * An unknown booking locks none; the transaction then answers 404 as it does today.
   */
  private async hostsToLock(scope: TenantScope, id: string): Promise<string[]> {
    const found = await this.repository.find(scope, id);
    if (!found) return [];
    return [...new Set([...found.hostUserIds, ...(await this.slots.hostsOf(scope, found.booking.eventTypeId))])];
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
}
