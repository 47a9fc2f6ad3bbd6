import { Injectable } from '@nestjs/common';
import { AppError, looksLikeId, pageMeta, type Principal, tenantScope } from '@app/common';
import { ReplicaReads } from '@app/database';
import { EventTypesService } from '../event-types/index.js';
import { GlobalLookups } from '../global-lookups/index.js';
import { type BookingFilters, BookingRows, mayActOnBooking, seesAllBookings } from '../booking-core/index.js';
import { attendeeBookingView, BookingEffectsService, bookingDetailView } from '../booking-effects/index.js';
import { BookingRemindersService } from '../booking-reminders/index.js';
import { BookingListResponse, BookingResponse, ListBookingsQueryDto, PublicBookingResponse } from './dto/booking.dto.js';

const DAY_MS = 86_400_000;

/** Whether 'YYYY-MM-DD…' starts with a real calendar date (2027-02-30 is not one). */
function hasRealDate(value: string): boolean {
  const [year, month, day] = value.slice(0, 10).split('-').map(Number);
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** A date is inclusive (UTC); a timestamp is exact (api-rules.md § Bookings). */
function rangeBound(value: string, field: string, end: boolean): Date {
  const isDate = /^\d{4}-\d{2}-\d{2}$/.test(value);
  const ms = Date.parse(isDate ? `${value}T00:00:00Z` : value);
  // Date.parse rolls 2027-02-30 over to March 2: the date part must survive the round trip.
  if (Number.isNaN(ms) || !hasRealDate(value)) {
    throw AppError.validation(field, `${field} must be a valid date or timestamp`);
  }
  return new Date(end ? ms + (isDate ? DAY_MS : 1) : ms);
}

/** Reading bookings: one, a page of them, and the attendee's own by its token. */
@Injectable()
export class BookingQueriesService {
  constructor(
    private readonly rows: BookingRows,
    private readonly eventTypes: EventTypesService,
    private readonly lookups: GlobalLookups,
    private readonly effects: BookingEffectsService,
    private readonly reminders: BookingRemindersService,
    private readonly replicaReads: ReplicaReads,
  ) {}

  async getForAttendee(id: string, token: string): Promise<PublicBookingResponse> {
    const scope = looksLikeId(id, 'bkg') ? await this.lookups.bookingForAttendee(id, token) : null;
    if (scope === null || scope === 'invalid') throw AppError.unauthorized('Invalid token for this booking');
    const found = await this.rows.find(scope, id);
    if (!found) throw AppError.unauthorized('Invalid token for this booking');
    return { booking: attendeeBookingView(found.booking, await this.effects.summaryOf(scope, found.booking)) };
  }

  async get(principal: Principal, id: string): Promise<BookingResponse> {
    const scope = tenantScope(principal);
    const found = looksLikeId(id, 'bkg') ? await this.rows.find(scope, id) : null;
    if (!found || !mayActOnBooking(principal, found.hostUserIds)) throw AppError.notFound('Booking');
    const [summary, reminders] = await Promise.all([this.effects.summaryOf(scope, found.booking), this.reminders.of(scope, id)]);
    return {
      booking: {
        ...bookingDetailView(found.booking, found.hostUserIds, summary),
        reminders: reminders.map((reminder) => ({
          minutesBefore: reminder.minutesBefore,
          dueAt: reminder.dueAt.toISOString(),
          sentAt: reminder.sentAt?.toISOString() ?? null,
        })),
      },
    };
  }

  /** GET /bookings: a standby may answer (ReplicaReads: one that has the organization's recorded writes). */
  list(principal: Principal, query: ListBookingsQueryDto): Promise<BookingListResponse> {
    return this.replicaReads.run(principal.organizationId, () => this.readList(principal, query));
  }

  private async readList(principal: Principal, query: ListBookingsQueryDto): Promise<BookingListResponse> {
    const filters: BookingFilters = {
      status: query.status,
      eventTypeId: query.eventTypeId,
      hostUserId: query.hostUserId,
      attendeeEmail: query.attendeeEmail,
      seriesId: query.seriesId,
      noShow: query.noShow,
      hostedBy: seesAllBookings(principal) ? undefined : principal.userId,
    };
    if (query.startDate) filters.startsFrom = rangeBound(query.startDate, 'startDate', false);
    if (query.endDate) filters.startsBefore = rangeBound(query.endDate, 'endDate', true);
    if (filters.startsFrom && filters.startsBefore && filters.startsBefore <= filters.startsFrom) {
      throw AppError.validation('endDate', 'endDate must not be before startDate');
    }
    const page = { page: query.page, limit: query.limit };
    const scope = tenantScope(principal);
    const [bookings, total] = await this.rows.list(scope, filters, page);
    const [hosts, summaries] = await Promise.all([
      this.rows.hostsOfMany(
        scope,
        bookings.map((b) => b.id),
      ),
      this.eventTypes.summaries(
        scope,
        bookings.map((b) => b.eventTypeId),
      ),
    ]);
    return {
      bookings: bookings.map((b) => bookingDetailView(b, hosts.get(b.id) ?? [b.hostUserId], summaries.get(b.eventTypeId)!)),
      ...pageMeta(page, total),
      page: page.page,
      limit: page.limit,
    };
  }
}
