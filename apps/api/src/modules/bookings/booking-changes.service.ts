import { Injectable } from '@nestjs/common';
import { parseInputTimestamp } from '@app/availability';
import { TransactionHost } from '@app/database';
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
import {
  type BookingRecord,
  BookingRows,
  type CancelledBy,
  HoldRows,
  mayActOnBooking,
  SlotDecisionService,
} from '../booking-core/index.js';
import { locationFor } from '../event-types/index.js';
import { GlobalLookups } from '../global-lookups/index.js';
import { fingerprintOf, type StoredResponse } from '../idempotency/index.js';
import {
  attendeeBookingView,
  attendeeCancelledView,
  attendeeRescheduledView,
  BookingEffectsService,
  bookingDetailView,
  cancelledView,
  rescheduledView,
} from '../booking-effects/index.js';
import { BookingRemindersService } from '../booking-reminders/index.js';
import {
  BookingResponse,
  CancelBookingDto,
  CancelledBookingResponse,
  DecisionDto,
  NoShowDto,
  PublicBookingResponse,
  RescheduleBookingDto,
} from './dto/booking.dto.js';

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
  booking: BookingRecord;
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
    private readonly rows: BookingRows,
    private readonly holdRows: HoldRows,
    private readonly slots: SlotDecisionService,
    private readonly lookups: GlobalLookups,
    private readonly effects: BookingEffectsService,
    private readonly reminders: BookingRemindersService,
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
          ? await this.rows.laterActiveForUpdate(scope, booking.seriesId, booking.startsAt)
          : [];
      const cancelled = [{ booking, hostUserIds }, ...following];
      const now = this.clock.now();
      const reason = dto.reason ?? null;
      const changes = { cancelledAt: now, cancellationReason: reason, cancelledBy: actor.by, updatedAt: now };
      const summary = await this.effects.summaryOf(scope, booking);
      // Rows, events, calendar removals and the mail leave together in one round trip, however many occurrences.
      await this.tx.batched(async () => {
        await this.rows.cancelMany(
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
        await this.effects.noLongerConfirmed(scope, wereConfirmed);
        await this.reminders.noLongerConfirmed(
          scope,
          wereConfirmed.map((occurrence) => occurrence.bookingId),
        );
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
    const write = { hosts, field: 'newStartTime' as const, key: idempotencyKey, fingerprint, requestId };
    return this.slots.writeOnce(scope, write, async (locked) => {
      await this.slots.lock(scope, locked);
      const original = await this.lockForAction(principal, id, dto.token);
      const { booking } = original;
      this.assertChangeable(booking);
      this.slots.assertLocked(original.hostUserIds, locked);
      const wasConfirmed = booking.status === 'confirmed';
      const timezone = dto.timezone ?? booking.timezone;
      const start = parseInputTimestamp(dto.newStartTime, timezone);
      if (start === null) throw AppError.validation('newStartTime', 'newStartTime must be a valid ISO 8601 timestamp');
      // Reschedule keeps the original host when it is free at the new time; round robin may reassign.
      const decided = await this.slots.decide(scope, booking.eventTypeId, start, locked, {
        field: 'newStartTime',
        excludeId: booking.id,
        preferred: booking.hostUserId,
      });
      const { eventType, hostUserIds } = decided;

      const now = this.clock.now();
      const token = randomBase62(32);
      const replacementId = newId('bkg');
      const replacement = {
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
      } satisfies BookingRecord;
      // The original's own time must not block the new one: free it first, in the same transaction.
      const cancelled = {
        cancelledAt: now,
        cancellationReason: 'rescheduled',
        cancelledBy: original.actor.by,
        rescheduledToBookingId: replacement.id,
        updatedAt: now,
      };
      await this.rows.setStatus(scope, booking.id, 'cancelled', cancelled);
      Object.assign(booking, { status: 'cancelled', ...cancelled });
      await this.holdRows.clearExpired(scope, decided);
      await this.rows.insert(scope, replacement, hostUserIds, eventType.seatsPerSlot !== null);

      if (wasConfirmed) {
        await this.effects.noLongerConfirmed(scope, [{ bookingId: booking.id, hostUserIds: original.hostUserIds }]);
        await this.reminders.noLongerConfirmed(scope, [booking.id]);
      }
      if (replacement.status === 'confirmed') {
        await this.effects.nowConfirmed(scope, replacement, eventType.title, hostUserIds);
        await this.reminders.confirmed(scope, [replacement]);
      }
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
      return { status: 200, body };
    });
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
      await this.rows.setStatus(scope, booking.id, outcome, changes);
      Object.assign(booking, { status: outcome, ...changes });
      const summary = await this.effects.summaryOf(scope, booking);
      const detail = bookingDetailView(booking, hostUserIds, summary);
      await this.effects.record(scope, outcome === 'confirmed' ? 'booking.confirmed' : 'booking.declined', { booking: detail });
      if (outcome === 'confirmed') {
        await this.effects.nowConfirmed(scope, booking, summary.title, hostUserIds);
        await this.reminders.confirmed(scope, [booking]);
      }
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
      const changed = await this.rows.markNoShow(scope, booking.id, dto.party, noShow, now);
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
      const found = await this.rows.findForUpdate(scope, id);
      if (!found || !mayActOnBooking(principal, found.hostUserIds)) throw AppError.notFound('Booking');
      return { scope, ...found, actor: { by: 'host', principal } };
    }
    const scope = await this.attendeeScope(id, token);
    const found = await this.rows.findForUpdate(scope, id);
    if (!found) throw AppError.notFound('Booking');
    return { scope, ...found, actor: { by: 'attendee' } };
  }

  /**
   * The hosts a reschedule of `id` locks: the booking's own and its event type's (who may take it at the new time).
   * An unknown booking locks none; the transaction then answers 404 as it does today.
   */
  private async hostsToLock(scope: TenantScope, id: string): Promise<string[]> {
    const found = await this.rows.find(scope, id);
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

  private assertChangeable(booking: BookingRecord): void {
    if (booking.status === 'cancelled') throw new AppError(ErrorCode.BOOKING_NOT_ACTIVE, 'The booking is cancelled');
    if (booking.startsAt.getTime() <= this.clock.now().getTime())
      throw new AppError(ErrorCode.BOOKING_IN_PAST, 'The booking has already started');
  }
}
