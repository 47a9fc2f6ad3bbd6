import { Injectable } from '@nestjs/common';
import { parseInputTimestamp } from '@app/availability';
import { AppError, Clock, newId, type Principal, randomBase62, sha256, type TenantScope } from '@app/common';
import { type BookingRecord, BookingRows, HoldRows } from '../booking-core/index.js';
import { SlotDecisionService } from '../slot-decision/index.js';
import { attendeeRescheduledView, BookingEffectsService, bookingDetailView, rescheduledView } from '../booking-effects/index.js';
import { BookingRemindersService } from '../booking-reminders/index.js';
import { assertAttendeeMayChange, locationFor } from '../event-types/index.js';
import { fingerprintOf, type StoredResponse } from '../idempotency/index.js';
import { BookingActors } from './booking-actors.service.js';
import { RescheduleBookingDto } from './dto/booking.dto.js';

const MINUTE_MS = 60_000;

/**
 * Moving a booking (POST /bookings/:id/reschedule): in one write under the hosts' locks the original is cancelled and
 * its replacement made, atomically, by a host (credentials) or the attendee (its token).
 */
@Injectable()
export class BookingRescheduleService {
  constructor(
    private readonly slots: SlotDecisionService,
    private readonly rows: BookingRows,
    private readonly holdRows: HoldRows,
    private readonly actors: BookingActors,
    private readonly effects: BookingEffectsService,
    private readonly reminders: BookingRemindersService,
    private readonly clock: Clock,
  ) {}

  async reschedule(
    principal: Principal | undefined,
    id: string,
    dto: RescheduleBookingDto,
    idempotencyKey: string | undefined,
    requestId: string,
  ): Promise<StoredResponse> {
    // The attendee brings no organization: the booking's own scope keys its Idempotency-Key.
    const scope = await this.actors.scopeForAction(principal, id, dto.token);
    const fingerprint = fingerprintOf(`POST /v1/bookings/${id}/reschedule`, dto);
    // Read before any connection is held: the hosts this reschedule will lock (the booking's and its event type's), to
    // queue for them here and lock them before the booking's row, in the order every booking takes them.
    const hosts = await this.hostsToLock(scope, id);
    const write = { hosts, field: 'newStartTime' as const, key: idempotencyKey, fingerprint, requestId };
    return this.slots.writeOnce(scope, write, async (locked) => {
      await this.slots.lock(scope, locked);
      const original = await this.actors.lockForAction(principal, id, dto.token);
      const { booking } = original;
      this.actors.assertChangeable(booking);
      // The attendee's token is bound by the event type's current policy (contract § 17); hosts never are.
      if (original.actor.by === 'attendee') {
        const current = await this.effects.summaryOf(scope, booking);
        assertAttendeeMayChange(current.attendeeRescheduling, 'rescheduling', booking.startsAt, this.clock.now());
      }
      this.slots.assertLocked(original.hostUserIds, locked);
      const wasConfirmed = booking.status === 'confirmed';
      const timezone = dto.timezone ?? booking.timezone ?? 'UTC';
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
        booking:
          original.actor.by === 'attendee'
            ? attendeeRescheduledView(replacement, token, eventType)
            : rescheduledView(replacement, token, eventType),
      };
      return { status: 200, body };
    });
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
}
