import { Injectable } from '@nestjs/common';
import { AppError, Clock, ErrorCode, looksLikeId, type Principal, tenantScope, type TenantScope } from '@app/common';
import { type BookingRecord, BookingRows, type CancelledBy, mayActOnBooking } from '../booking-core/index.js';
import { GlobalLookups } from '../global-lookups/index.js';

function noCredentials(): AppError {
  return AppError.unauthorized('Send host credentials or the attendee token');
}

/** Who is acting on an existing booking: a host (credentials) or the attendee (token). */
export interface Actor {
  by: CancelledBy;
  principal?: Principal;
}

/** A booking locked for a change, with its hosts, the scope it lives in and who acts on it. */
export interface LockedBooking {
  scope: TenantScope;
  booking: BookingRecord;
  hostUserIds: string[];
  actor: Actor;
}

/**
 * Who may act on an existing booking (api-rules.md § Bookings): a host with credentials who may act on it, or the
 * attendee with the booking's token; the one place the changes (cancel, reschedule, confirm, decline, no-show) ask.
 */
@Injectable()
export class BookingActors {
  constructor(
    private readonly rows: BookingRows,
    private readonly lookups: GlobalLookups,
    private readonly clock: Clock,
  ) {}

  /** The booking, its row locked until the transaction ends, and who acts on it. */
  async lockForAction(principal: Principal | undefined, id: string, token: string | undefined): Promise<LockedBooking> {
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

  /** The scope an action works in: the caller's, or the booking's when the attendee's token opens it. */
  async scopeForAction(principal: Principal | undefined, id: string, token: string | undefined): Promise<TenantScope> {
    if (principal) return tenantScope(principal);
    if (!token) throw noCredentials();
    if (!looksLikeId(id, 'bkg')) throw AppError.notFound('Booking');
    return this.attendeeScope(id, token);
  }

  /** 409 unless the booking may still change: not cancelled, not started. */
  assertChangeable(booking: BookingRecord): void {
    if (booking.status === 'cancelled') throw new AppError(ErrorCode.BOOKING_NOT_ACTIVE, 'The booking is cancelled');
    if (booking.startsAt.getTime() <= this.clock.now().getTime())
      throw new AppError(ErrorCode.BOOKING_IN_PAST, 'The booking has already started');
  }

  private async attendeeScope(id: string, token: string | undefined): Promise<TenantScope> {
    if (!token) throw noCredentials();
    const scope = await this.lookups.bookingForAttendee(id, token);
    if (scope === null) throw AppError.notFound('Booking');
    if (scope === 'invalid') throw AppError.unauthorized('Invalid token for this booking');
    return scope;
  }
}
