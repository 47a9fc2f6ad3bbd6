import { Injectable } from '@nestjs/common';
import { Clock, newId, type PageRequest, sha256, type ScopedIds, type TenantScope } from '@app/common';
import { PeriodicJobs } from '../../jobs/index.js';
import { type EventTypeDetails, locationFor } from '../event-types/index.js';
import type { BookingAnswer } from './booking-answers.js';
import type { BookingRecord, BookingStatus, BookingWithHosts, CancelledBy, HoldRecord } from './booking-record.js';
import { BookingCountsRepository } from './booking-counts.repository.js';
import { type BookingFilters, BookingReadsRepository } from './booking-reads.repository.js';
import { BookingsRepository } from './bookings.repository.js';
import type { CreateBookingDto } from './dto/booking-request.dto.js';
import { ERASED_ATTENDEE } from './attendee-erasure.js';
import { Booking } from './entities/booking.entity.js';

export type { BookingFilters } from './booking-reads.repository.js';

const MINUTE_MS = 60_000;
/** How often the kept counts' rows are folded: a busy organization adds a row per booking meanwhile. */
const COUNT_FOLD_INTERVAL_MS = MINUTE_MS;
const COUNT_FOLD_GROUPS = 1000;
const COUNT_FOLD_ROWS = 10_000;
/** At most this many statements a round (a million rows): a larger backlog goes on over the next rounds. */
const COUNT_FOLD_STATEMENTS = 100;

/**
 * The booking rows (`bookings`, and each host's occupancy in `booking_hosts`), for every module that makes, changes or
 * reads bookings. Writes join the caller's transaction; inside SlotDecisionService.write they leave with its batch.
 */
@Injectable()
export class BookingRows {
  constructor(
    private readonly repository: BookingsRepository,
    private readonly reads: BookingReadsRepository,
    private readonly counts: BookingCountsRepository,
    private readonly clock: Clock,
    jobs: PeriodicJobs,
  ) {
    jobs.register('booking-count-fold', COUNT_FOLD_INTERVAL_MS, () => this.foldCounts());
  }

  /** A new booking's row as every way of making one builds it: through a hold, the buffers it was granted with. */
  newBooking(
    scope: TenantScope,
    dto: CreateBookingDto,
    eventType: EventTypeDetails,
    start: number,
    hostUserIds: readonly string[],
    answers: BookingAnswer[],
    token: string,
    hold?: HoldRecord,
  ): BookingRecord {
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
      attendeeLocale: dto.attendee.locale ?? null,
      timezone: dto.timezone,
      locationType: eventType.locationType,
      location: locationFor(eventType.location, id),
      notes: dto.notes ?? null,
      metadata: dto.metadata ?? {},
      answers,
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

  /** The booking and its hosts' rows (the primary first); `seated`: one seat of its start (api-rules.md § Seats and series). */
  insert(scope: TenantScope, booking: BookingRecord, hostUserIds: readonly string[], seated: boolean): Promise<void> {
    return this.repository.insert(scope, booking, hostUserIds, seated);
  }

  /** Several bookings with the same hosts (a series' occurrences), in one statement. */
  insertMany(scope: TenantScope, bookings: readonly BookingRecord[], hostUserIds: readonly string[]): Promise<void> {
    return this.repository.insertMany(scope, bookings, hostUserIds);
  }

  /** The booking in its hold's place: the hold's occupancy becomes the booking's, never free in between, and the hold goes. */
  insertFromHold(scope: TenantScope, booking: BookingRecord, holdId: string): Promise<void> {
    return this.repository.insertFromHold(scope, booking, holdId);
  }

  /** A new status for the booking and its hosts' rows together (confirm, decline, the original of a reschedule). */
  setStatus(
    scope: TenantScope,
    id: string,
    status: BookingStatus,
    changes: Partial<Pick<BookingRecord, 'cancelledAt' | 'cancellationReason' | 'rescheduledToBookingId' | 'updatedAt'>> & {
      cancelledBy?: CancelledBy | null;
    },
  ): Promise<void> {
    return this.repository.setStatus(scope, id, status, changes);
  }

  /** Other hosts for the booking (a reassignment), the primary first; its rows' time and status stay. */
  replaceHosts(scope: TenantScope, id: string, hostUserIds: readonly string[], at: Date): Promise<void> {
    return this.repository.replaceHosts(scope, id, hostUserIds, at);
  }

  /** Cancels bookings (one, or a series' occurrence and the following ones) and their hosts' rows, two writes in all. */
  cancelMany(
    scope: TenantScope,
    ids: readonly string[],
    changes: Pick<BookingRecord, 'cancelledAt' | 'cancellationReason' | 'updatedAt'> & { cancelledBy: CancelledBy },
  ): Promise<void> {
    return this.repository.cancelMany(scope, ids, changes);
  }

  /**
   * Erases the attendee `email` from this scope's bookings (contract § 18) in the caller's transaction and returns them
   * as they are now. Each booking is erased whole or not at all: everything else about it is found by its id, and a
   * booking committed while this runs is found by the next pass (each statement sees what committed before it) or, once
   * a pass finds none, left as made, after the erasure.
   */
  async eraseAttendee(scope: TenantScope, email: string): Promise<BookingWithHosts[]> {
    const ids: string[] = [];
    for (let pass = 0; pass < 3; pass++) {
      const found = await this.repository.eraseAttendee(scope, email, ERASED_ATTENDEE, this.clock.now());
      if (found.length === 0) break;
      ids.push(...found);
    }
    return this.reads.findMany(scope, ids);
  }

  /**
   * Erases `email` where it is another booking's answer (contract § 18: nothing the API returns names it): those bookings
   * keep their attendee; each email-type answer equal to it (case ignored) becomes the erased address. Returns them as
   * they are now, in the caller's transaction.
   */
  async eraseEmailAnswers(scope: TenantScope, email: string): Promise<BookingWithHosts[]> {
    const ids = await this.repository.eraseEmailAnswers(scope, email, ERASED_ATTENDEE.email, this.clock.now());
    return this.reads.findMany(scope, ids);
  }

  /** Sets one no-show mark; says whether it changed. */
  markNoShow(scope: TenantScope, id: string, party: 'attendee' | 'host', noShow: boolean, at: Date): Promise<boolean> {
    return this.repository.markNoShow(scope, id, party, noShow, at);
  }

  /** The booking, its row locked until the transaction ends: changes of one booking take turns. */
  findForUpdate(scope: TenantScope, id: string): Promise<BookingWithHosts | null> {
    return this.reads.findForUpdate(scope, id);
  }

  /** The active occurrences of a series starting after `after`, locked (cancel "following"). */
  laterActiveForUpdate(scope: TenantScope, seriesId: string, after: Date): Promise<BookingWithHosts[]> {
    return this.reads.laterActiveForUpdate(scope, seriesId, after);
  }

  find(scope: TenantScope, id: string): Promise<BookingWithHosts | null> {
    return this.reads.find(scope, id);
  }

  /** These bookings with their hosts, in no particular order; ids of another organization or mode are left out. */
  findMany(scope: TenantScope, ids: readonly string[]): Promise<BookingWithHosts[]> {
    return this.reads.findMany(scope, ids);
  }

  /** The bookings of several organizations at once (a job's round), each with its hosts, in two statements, share-locked in id order (BookingReadsRepository.findManyAcross says why). */
  findManyAcross(keys: readonly ScopedIds[]): Promise<BookingWithHosts[]> {
    return this.reads.findManyAcross(keys);
  }

  /** Each booking's hosts, the primary first. */
  hostsOfMany(scope: TenantScope, bookingIds: readonly string[]): Promise<Map<string, string[]>> {
    return this.reads.hostsOfMany(scope, bookingIds);
  }

  /**
   * A page of the list and its total. Without filters, or with `status` alone, the total is the kept count (migration
   * KeptBookingCounts: a sum of a few rows, whatever the organization's size); other filters count the matching bookings.
   */
  async list(scope: TenantScope, filters: BookingFilters, page: PageRequest): Promise<[BookingRecord[], number]> {
    const { status, ...others } = filters;
    if (Object.values(others).some((value) => value !== undefined)) return this.reads.list(scope, filters, page);
    return [await this.reads.page(scope, filters, page), await this.counts.total(scope, status)];
  }

  /** The kept counts' rows folded, in bounded statements (BookingCountsRepository.fold); returns how many rows went. */
  async foldCounts(): Promise<number> {
    let removed = 0;
    for (let statement = 0; statement < COUNT_FOLD_STATEMENTS; statement++) {
      const round = await this.counts.fold(COUNT_FOLD_GROUPS, COUNT_FOLD_ROWS);
      removed += round.removed;
      // Every row of the groups found was taken, and no group was left out: nothing more to fold now.
      if (round.taken < COUNT_FOLD_ROWS && round.groups < COUNT_FOLD_GROUPS) return removed;
      if (round.removed === 0) return removed; // what is left is locked by a fold on another instance
    }
    return removed;
  }

  /** A series' occurrences as they stand (a rescheduled one's replacement), by occurrence. */
  occurrencesOf(scope: TenantScope, seriesId: string): Promise<BookingWithHosts[]> {
    return this.reads.occurrencesOf(scope, seriesId);
  }

  /** Live confirmed and pending bookings `userId` hosts, starting in [from, to) (a member's calendar feed). */
  hostedBy(scope: TenantScope, userId: string, from: Date, to: Date): Promise<BookingRecord[]> {
    return this.reads.hostedBookings(scope, userId, from, to);
  }
}
