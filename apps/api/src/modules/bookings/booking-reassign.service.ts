import { Injectable } from '@nestjs/common';
import { explainStart } from '@app/availability';
import { AppError, Clock, ErrorCode, type Principal, tenantScope, type TenantScope } from '@app/common';
import { BookingRows, HoldRows, seesAllBookings } from '../booking-core/index.js';
import { SlotDecisionService, slotUnavailable } from '../slot-decision/index.js';
import { BookingEffectsService, bookingDetailView } from '../booking-effects/index.js';
import { AuditTrail } from '../audit/index.js';
import { AvailabilityService } from '../availability/index.js';
import type { EventTypeDetails } from '../event-types/index.js';
import { TeamService } from '../team/index.js';
import { BookingActors } from './booking-actors.service.js';
import type { BookingResponse, ReassignBookingDto } from './dto/booking.dto.js';

const DAY_MS = 86_400_000;

/**
 * Giving an active future booking another host (POST /bookings/:id/reassign, contract § 17), under the same host
 * queue, locks and exclusion constraint as a booking: the new host must be free at the booking's time by every rule of
 * its availability (schedule, overrides, out of office, bookings with buffers, holds, calendars, the daily cap), the
 * time rules of booking (notice, window) aside, since the time was booked already. Id, token, times and attendee stay.
 */
@Injectable()
export class BookingReassignService {
  constructor(
    private readonly slots: SlotDecisionService,
    private readonly rows: BookingRows,
    private readonly holdRows: HoldRows,
    private readonly actors: BookingActors,
    private readonly effects: BookingEffectsService,
    private readonly availability: AvailabilityService,
    private readonly team: TeamService,
    private readonly clock: Clock,
    private readonly audit: AuditTrail,
  ) {}

  async reassign(principal: Principal, id: string, dto: ReassignBookingDto): Promise<BookingResponse> {
    const scope = tenantScope(principal);
    if (dto.hostUserId !== undefined && !(await this.team.findActiveMember(scope, dto.hostUserId))) throw AppError.notFound('Member');
    const hosts = await this.hostsToLock(scope, id, dto.hostUserId);
    return this.slots.write(scope, { hosts, field: 'hostUserId' }, async (locked) => {
      await this.slots.lock(scope, locked);
      const { booking, hostUserIds: previous } = await this.actors.lockForAction(principal, id, undefined);
      this.actors.assertChangeable(booking);
      this.slots.assertLocked(previous, locked);
      const eventType = await this.slots.eventTypeOf(scope, booking.eventTypeId);
      this.slots.assertLocked(eventType.hostUserIds, locked);
      const start = booking.startsAt.getTime();
      const from = this.placeHandedOver(principal, previous, dto.fromHostUserId);

      // The place of `from` is handed over; a collective booking keeps its other hosts.
      let chosen: { hostUserId: string; expiredHolds: boolean };
      if (dto.hostUserId !== undefined) {
        if (previous.includes(dto.hostUserId)) throw AppError.validation('hostUserId', 'hostUserId already hosts this booking');
        chosen = await this.freeHost(scope, eventType, start, booking.id, [dto.hostUserId], 'one_on_one');
      } else {
        const others = eventType.hostUserIds.filter((host) => !previous.includes(host));
        if (eventType.schedulingType !== 'round_robin' || others.length === 0) {
          throw new AppError(ErrorCode.SLOT_UNAVAILABLE, 'No other host to give the booking to; name one in hostUserId', [
            { field: 'hostUserId', message: 'no_other_host' },
          ]);
        }
        chosen = await this.freeHost(scope, eventType, start, booking.id, others, 'round_robin');
      }
      this.slots.assertLocked([chosen.hostUserId], locked);
      const hostUserIds = previous.map((host) => (host === from ? chosen.hostUserId : host));
      const removed = previous.filter((host) => !hostUserIds.includes(host));
      const added = hostUserIds.filter((host) => !previous.includes(host));

      const now = this.clock.now();
      await this.holdRows.clearExpired(scope, { hostUserIds: added, expiredHolds: chosen.expiredHolds });
      await this.rows.replaceHosts(scope, booking.id, hostUserIds, now);
      Object.assign(booking, { hostUserId: hostUserIds[0], updatedAt: now });
      if (booking.status === 'confirmed') {
        // The calendar write-back moves: off the former host's calendar, onto the new one's.
        await this.effects.noLongerConfirmed(scope, [{ bookingId: booking.id, hostUserIds: removed }]);
        await this.effects.nowConfirmed(scope, booking, eventType.title, added);
      }
      this.audit.describe({ changes: { hostUserIds: { from: previous, to: hostUserIds } } });
      const detail = bookingDetailView(booking, hostUserIds, eventType);
      await this.effects.record(scope, 'booking.reassigned', { booking: detail, previousHostUserIds: previous });
      await this.effects.sendMails(scope, 'reassignment', booking, {
        hostUserIds,
        title: eventType.title,
        previousHostUserIds: removed,
      });
      return { booking: detail };
    });
  }

  /**
   * Whose place is handed over (contract § 17): the one named, else the first host, or for a member (who may act only on
   * the bookings it hosts) the member itself; a member naming another host's place → 403, a user who does not host the
   * booking → 400 naming `fromHostUserId`.
   */
  private placeHandedOver(principal: Principal, previous: readonly string[], fromHostUserId: string | undefined): string {
    const ownPlaceOnly = !seesAllBookings(principal);
    const from = fromHostUserId ?? (ownPlaceOnly ? principal.userId : previous[0]);
    if (ownPlaceOnly && from !== principal.userId) throw AppError.forbidden('A member may hand over only its own place in a booking');
    if (from === undefined || !previous.includes(from))
      throw AppError.validation('fromHostUserId', 'fromHostUserId does not host this booking');
    return from;
  }

  /**
   * The host among `candidates` the slot engine gives the start to (one named host, or round robin by its rotation),
   * judged with this event type's rules but none of the booking-time rules; 409 SLOT_UNAVAILABLE with the reason.
   */
  private async freeHost(
    scope: TenantScope,
    eventType: EventTypeDetails,
    start: number,
    bookingId: string,
    candidates: readonly string[],
    schedulingType: 'one_on_one' | 'round_robin',
  ): Promise<{ hostUserId: string; expiredHolds: boolean }> {
    const now = this.clock.now().getTime();
    const judged: EventTypeDetails = {
      ...eventType,
      schedulingType,
      hostUserIds: [...candidates],
      minimumNoticeHours: 0,
      bookingWindowDays: Math.max(eventType.bookingWindowDays, Math.ceil((start - now) / DAY_MS) + 1),
    };
    const loaded = await this.availability.loadSlotQuery(
      scope,
      eventType.id,
      { from: start, to: start },
      { excludeBookingId: bookingId, beyondBookingWindow: true },
      judged,
    );
    const verdict = explainStart(loaded.query, start);
    if (!verdict.available) throw slotUnavailable('hostUserId', verdict.reason);
    // A named member who is away gives the time to its stand-in: not what was asked for.
    if (schedulingType === 'one_on_one' && verdict.hostUserId !== candidates[0]) throw slotUnavailable('hostUserId', 'out_of_office');
    return { hostUserId: verdict.hostUserId, expiredHolds: loaded.expiredHolds };
  }

  /** The booking's hosts, its event type's and the one asked for: every host the decision may give it to. */
  private async hostsToLock(scope: TenantScope, id: string, hostUserId: string | undefined): Promise<string[]> {
    const found = await this.rows.find(scope, id);
    if (!found) return hostUserId === undefined ? [] : [hostUserId];
    const eventTypeHosts = await this.slots.hostsOf(scope, found.booking.eventTypeId);
    return [...new Set([...found.hostUserIds, ...eventTypeHosts, ...(hostUserId === undefined ? [] : [hostUserId])])];
  }
}
