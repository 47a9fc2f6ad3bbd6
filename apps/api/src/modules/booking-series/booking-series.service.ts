import { Injectable } from '@nestjs/common';
import { seriesStarts } from '@app/calendar';
import { AppError, Clock, looksLikeId, newId, type Principal, randomBase62, sha256, tenantScope, type TenantScope } from '@app/common';
import { acceptedAnswers, type BookingRecord, BookingRows, CreateBookingDto, HoldRows, mayActOnBooking } from '../booking-core/index.js';
import { BookingEffectsService, bookingDetailView } from '../booking-effects/index.js';
import { BookingRemindersService } from '../booking-reminders/index.js';
import { HoldsService } from '../holds/index.js';
import { type SeriesHostsDecision, SlotDecisionService } from '../slot-decision/index.js';
import { BookingSeriesRepository } from './booking-series.repository.js';
import type { SeriesResponse, SeriesView } from './dto/series.dto.js';
import { BookingSeries } from './entities/booking-series.entity.js';

/** What a series is asked for: the first occurrence's time, and a publishable key's hold token (undefined: a secret key's). */
export interface SeriesRequest {
  dto: CreateBookingDto;
  start: number;
  holdToken: string | null | undefined;
}

/** A series' decision: its starts, ascending, and where each goes (`occurrenceHosts`, in the same order). */
export interface SeriesDecision extends SeriesHostsDecision {
  starts: number[];
}

/**
 * The occurrences' positions grouped by their hosts, in order of first occurrence: one group unless a stand-in took an
 * absent host's place at some of them (contract § 17).
 */
function byHosts(occurrenceHosts: readonly (readonly string[])[]): { hostUserIds: readonly string[]; indexes: number[] }[] {
  const groups = new Map<string, { hostUserIds: readonly string[]; indexes: number[] }>();
  occurrenceHosts.forEach((hostUserIds, index) => {
    const key = hostUserIds.join(' ');
    const group = groups.get(key);
    if (group) group.indexes.push(index);
    else groups.set(key, { hostUserIds, indexes: [index] });
  });
  return [...groups.values()];
}

/** A series as written: its row, its occurrences in order, and the attendee's token that opens every one. */
export interface WrittenSeries {
  series: BookingSeries;
  bookings: BookingRecord[];
  token: string;
}

/**
 * Recurring series (api-rules.md § Seats and series): made by POST /bookings with recurrenceCount, all or nothing, in
 * the booking's write under the hosts' locks (decide, write, hand off: each a step of its own, so the caller can
 * count the visitor between the rows and their effects); read by GET /series/:id.
 */
@Injectable()
export class BookingSeriesService {
  constructor(
    private readonly repository: BookingSeriesRepository,
    private readonly slots: SlotDecisionService,
    private readonly rows: BookingRows,
    private readonly holdRows: HoldRows,
    private readonly holds: HoldsService,
    private readonly effects: BookingEffectsService,
    private readonly reminders: BookingRemindersService,
    private readonly clock: Clock,
  ) {}

  /** Erasure (contract § 18): an erased attendee's series keep no zone of theirs, in the caller's transaction. */
  attendeeErased(scope: TenantScope, seriesIds: readonly string[]): Promise<void> {
    return this.repository.forgetTimezones(scope, [...new Set(seriesIds)]);
  }

  /**
   * Under the `locked` hosts: the starts (the event type's rule from the first one's wall-clock time in the request's
   * zone), each judged by the rules of a single booking (the window by the first only), one host for all of them but
   * those in its absences with a stand-in, which are the stand-in's as a single booking would be.
   */
  async decide(scope: TenantScope, request: SeriesRequest, locked: readonly string[]): Promise<SeriesDecision> {
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

  /** The series' row and every occurrence's, in the write's batch, where the exclusion constraint has the last word on each. */
  async write(scope: TenantScope, dto: CreateBookingDto, decided: SeriesDecision): Promise<WrittenSeries> {
    const { eventType, occurrenceHosts } = decided;
    const answers = acceptedAnswers(eventType.questions, dto.answers ?? {});
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
      ...this.rows.newBooking(scope, dto, eventType, start, occurrenceHosts[index], answers, token),
      seriesId: series.id,
      occurrence: index + 1,
    }));
    await this.holdRows.clearExpired(scope, { hostUserIds: [...new Set(occurrenceHosts.flat())], expiredHolds: decided.expiredHolds });
    await this.repository.insertSeries(scope, series);
    for (const { hostUserIds, indexes } of byHosts(occurrenceHosts)) {
      await this.rows.insertMany(
        scope,
        indexes.map((index) => bookings[index]),
        hostUserIds,
      );
    }
    return { series, bookings, token };
  }

  /**
   * What the occurrences cause: one `booking.created` each, the hosts' calendars, the reminders, and one mail to the
   * attendee listing every date; the hosts' mail holds only each one's occurrences (a stand-in took some of them).
   */
  async handOff(scope: TenantScope, written: WrittenSeries, decided: SeriesDecision): Promise<void> {
    const { bookings, token } = written;
    const { eventType, occurrenceHosts } = decided;
    await this.effects.recordEach(
      scope,
      'booking.created',
      bookings.map((booking, index) => ({ booking: bookingDetailView(booking, occurrenceHosts[index], eventType) })),
    );
    const groups = byHosts(occurrenceHosts).map(({ hostUserIds, indexes }) => ({
      hostUserIds,
      bookings: indexes.map((index) => bookings[index]),
    }));
    for (const group of groups) {
      const confirmed = group.bookings.filter((booking) => booking.status === 'confirmed');
      await this.effects.allNowConfirmed(scope, confirmed, eventType.title, group.hostUserIds);
    }
    await this.reminders.confirmed(
      scope,
      bookings.filter((booking) => booking.status === 'confirmed'),
    );
    await this.effects.sendSeriesMails(
      scope,
      bookings[0].status === 'pending' ? 'pending' : 'confirmation',
      bookings.map((booking, index) => ({ booking, hostUserIds: occurrenceHosts[index] })),
      { title: eventType.title, confirmationToken: token },
    );
  }

  /** The series as the answer that made it shows it. */
  view(written: WrittenSeries): SeriesView {
    return {
      id: written.series.id,
      count: written.series.count,
      bookings: written.bookings.map((booking) => ({
        id: booking.id,
        startsAt: booking.startsAt.toISOString(),
        endsAt: booking.endsAt.toISOString(),
        status: booking.status,
      })),
    };
  }

  /** A series with its occurrences as they stand; a member sees only a series it hosts. */
  async get(principal: Principal, id: string): Promise<SeriesResponse> {
    const scope = tenantScope(principal);
    const series = looksLikeId(id, 'ser') ? await this.repository.findSeries(scope, id) : null;
    const occurrences = series ? await this.rows.occurrencesOf(scope, series.id) : [];
    if (!series || !occurrences.some((found) => mayActOnBooking(principal, found.hostUserIds))) throw AppError.notFound('Series');
    return {
      series: {
        id: series.id,
        eventTypeId: series.eventTypeId,
        frequency: series.frequency,
        interval: series.interval,
        count: series.count,
        timezone: series.timezone,
        createdAt: series.createdAt.toISOString(),
        livemode: series.livemode,
        bookings: occurrences.map(({ booking }) => ({
          id: booking.id,
          startsAt: booking.startsAt.toISOString(),
          endsAt: booking.endsAt.toISOString(),
          status: booking.status,
        })),
      },
    };
  }
}
