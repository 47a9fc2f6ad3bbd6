import { Injectable } from '@nestjs/common';
import { AppError, Clock, ErrorCode, type Principal } from '@app/common';
import { TransactionHost } from '@app/database';
import { BookingRows, mayActOnBooking } from '../booking-core/index.js';
import {
  attendeeBookingView,
  attendeeCancelledView,
  BookingEffectsService,
  bookingDetailView,
  cancelledView,
} from '../booking-effects/index.js';
import { BookingRemindersService } from '../booking-reminders/index.js';
import { assertAttendeeMayChange } from '../event-types/index.js';
import { BookingActors } from './booking-actors.service.js';
import {
  BookingResponse,
  CancelBookingDto,
  CancelledBookingResponse,
  DecisionDto,
  NoShowDto,
  PublicBookingResponse,
} from './dto/booking.dto.js';

/**
 * Changing a booking: cancel, confirm, decline and the no-show marks, by a host (credentials) or the attendee (its
 * token), each in one transaction with the booking row locked (a reschedule is BookingRescheduleService's).
 */
@Injectable()
export class BookingChangesService {
  constructor(
    private readonly tx: TransactionHost,
    private readonly rows: BookingRows,
    private readonly actors: BookingActors,
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
      const { scope, booking, hostUserIds, actor } = await this.actors.lockForAction(principal, id, dto.token);
      this.actors.assertChangeable(booking);
      const summary = await this.effects.summaryOf(scope, booking);
      // The attendee's token is bound by the event type's current policy (contract § 17); hosts never are.
      if (actor.by === 'attendee')
        assertAttendeeMayChange(summary.attendeeCancellation, 'cancellation', booking.startsAt, this.clock.now());
      // A member cancels the later occurrences it may act on (contract § 4: the bookings it hosts); one a stand-in or a
      // reassignment gave another host stays that host's. The attendee's token and the admins' credentials take all.
      const following = (
        dto.scope === 'following' && booking.seriesId !== null
          ? await this.rows.laterActiveForUpdate(scope, booking.seriesId, booking.startsAt)
          : []
      ).filter((occurrence) => actor.principal === undefined || mayActOnBooking(actor.principal, occurrence.hostUserIds));
      const cancelled = [{ booking, hostUserIds }, ...following];
      const now = this.clock.now();
      const reason = dto.reason ?? null;
      const changes = { cancelledAt: now, cancellationReason: reason, cancelledBy: actor.by, updatedAt: now };
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
        await this.effects.sendSeriesMails(scope, 'cancellation', cancelled, { title: summary.title, reason });
      });
      return {
        booking: actor.by === 'attendee' ? attendeeCancelledView(booking) : cancelledView(booking),
        ...(dto.scope === 'following' ? { cancelledBookingIds: cancelled.map((occurrence) => occurrence.booking.id) } : {}),
      };
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
      const { scope, booking, hostUserIds } = await this.actors.lockForAction(principal, id, undefined);
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
      await this.effects.sendMails(scope, outcome === 'confirmed' ? 'confirmation' : 'declined', booking, {
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
      const { scope, booking, hostUserIds, actor } = await this.actors.lockForAction(principal, id, dto.token);
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
      const summary = await this.effects.summaryOf(scope, booking);
      const detail = bookingDetailView(booking, hostUserIds, summary);
      if (changed && noShow) {
        await this.effects.record(scope, 'booking.no_show', { booking: detail, party: dto.party });
        // The party marked is told, in its language (contract § 23).
        await this.effects.sendNoShowMails(scope, booking, hostUserIds, summary.title, dto.party);
      }
      // The attendee's token gets the attendee's view, never the host's (api-rules.md § Browser booking).
      return { booking: actor.by === 'attendee' ? attendeeBookingView(booking, summary) : detail };
    });
  }
}
