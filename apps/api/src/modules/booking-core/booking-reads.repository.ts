import { Injectable } from '@nestjs/common';
import { pageOffset, type PageRequest, type ScopedIds, scopedColumns, type TenantScope } from '@app/common';
import { In, IsNull, MoreThan } from 'typeorm';
import { TransactionHost } from '@app/database';
import { BUSY_STATUSES_SQL } from '../booking-occupancy/index.js';
import type { BookingWithHosts } from './booking-record.js';
import { Booking, type BookingStatus } from './entities/booking.entity.js';

export interface BookingFilters {
  status?: BookingStatus;
  startsFrom?: Date;
  startsBefore?: Date;
  eventTypeId?: string;
  hostUserId?: string;
  attendeeEmail?: string;
  seriesId?: string;
  noShow?: 'attendee' | 'host';
  /** Members see only the bookings they host. */
  hostedBy?: string;
}

/**
 * The reads of the booking rows, each booking with its hosts (the primary first); the `ForUpdate` ones lock the booking
 * rows until the transaction ends. The writes are in BookingsRepository.
 */
@Injectable()
export class BookingReadsRepository {
  constructor(private readonly tx: TransactionHost) {}

  async find(scope: TenantScope, id: string): Promise<BookingWithHosts | null> {
    const booking = await this.tx.reads.findOne(Booking, {
      where: { id, organizationId: scope.organizationId, livemode: scope.livemode },
    });
    return booking ? (await this.withHosts(scope, [booking]))[0] : null;
  }

  /** These bookings with their hosts, in no particular order; ids of another organization or mode are left out. */
  async findMany(scope: TenantScope, ids: readonly string[]): Promise<BookingWithHosts[]> {
    if (ids.length === 0) return [];
    const bookings = await this.tx.reads.find(Booking, {
      where: { id: In([...ids]), organizationId: scope.organizationId, livemode: scope.livemode },
    });
    return this.withHosts(scope, bookings);
  }

  /** Locks the booking row: concurrent cancel/reschedule/confirm of one booking take turns. */
  async findForUpdate(scope: TenantScope, id: string): Promise<BookingWithHosts | null> {
    const booking = await this.tx.transactional.findOne(Booking, {
      where: { id, organizationId: scope.organizationId, livemode: scope.livemode },
      lock: { mode: 'pessimistic_write' },
    });
    return booking ? (await this.withHosts(scope, [booking]))[0] : null;
  }

  /**
   * A series' occurrences as they stand: each occurrence's current booking (a rescheduled one's replacement,
   * not the original), by occurrence.
   */
  async occurrencesOf(scope: TenantScope, seriesId: string): Promise<BookingWithHosts[]> {
    const bookings = await this.tx.reads.find(Booking, {
      where: { seriesId, organizationId: scope.organizationId, livemode: scope.livemode, rescheduledToBookingId: IsNull() },
      order: { occurrence: 'ASC', startsAt: 'ASC' },
    });
    return this.withHosts(scope, bookings);
  }

  /** The active occurrences of a series starting after `after`, locked (cancel "following"). */
  async laterActiveForUpdate(scope: TenantScope, seriesId: string, after: Date): Promise<BookingWithHosts[]> {
    const bookings = await this.tx.transactional.find(Booking, {
      where: {
        seriesId,
        organizationId: scope.organizationId,
        livemode: scope.livemode,
        startsAt: MoreThan(after),
        status: In(['confirmed', 'pending']),
      },
      order: { startsAt: 'ASC', id: 'ASC' },
      lock: { mode: 'pessimistic_write' },
    });
    return this.withHosts(scope, bookings);
  }

  /**
   * The bookings of several organizations (a job's round), each with its hosts: two statements for all of them. Each
   * booking row is share-locked until the transaction ends, in (starts_at, id) order (as erasure and a series' "cancel
   * following" lock them, so none of them can deadlock another): a reader that writes what it read elsewhere (a reminder's mails) sees a booking before or after an
   * erasure, never writes a copy the erasure has already looked for.
   */
  async findManyAcross(keys: readonly ScopedIds[]): Promise<BookingWithHosts[]> {
    const { organizationIds, livemodes, ids } = scopedColumns(keys);
    if (ids.length === 0) return [];
    const bookings = await this.tx.transactional
      .createQueryBuilder(Booking, 'b')
      .where(
        `(b.organization_id, b.livemode, b.id) IN (SELECT * FROM unnest(CAST(:organizationIds AS text[]), CAST(:livemodes AS boolean[]), CAST(:ids AS text[])))`,
        { organizationIds, livemodes, ids },
      )
      .orderBy('b.startsAt')
      .addOrderBy('b.id')
      .setLock('pessimistic_read')
      .getMany();
    if (bookings.length === 0) return [];
    const rows: { booking_id: string; host_user_id: string }[] = await this.tx.reads.query(
      `SELECT booking_id, host_user_id FROM booking_hosts
        WHERE (organization_id, booking_id) IN (SELECT * FROM unnest($1::text[], $2::text[]))
        ORDER BY booking_id, position, host_user_id`,
      [bookings.map((booking) => booking.organizationId), bookings.map((booking) => booking.id)],
    );
    const hosts = new Map<string, string[]>();
    for (const row of rows) hosts.set(row.booking_id, [...(hosts.get(row.booking_id) ?? []), row.host_user_id]);
    return bookings.map((booking) => ({ booking, hostUserIds: hosts.get(booking.id) ?? [] }));
  }

  /** Each booking's hosts, the primary first, in the order they were booked in. */
  async hostsOfMany(scope: TenantScope, bookingIds: readonly string[]): Promise<Map<string, string[]>> {
    const result = new Map<string, string[]>();
    if (bookingIds.length === 0) return result;
    const rows: { booking_id: string; host_user_id: string }[] = await this.tx.reads.query(
      `SELECT booking_id, host_user_id FROM booking_hosts
        WHERE organization_id = $1 AND booking_id = ANY($2::text[])
        ORDER BY booking_id, position, host_user_id`,
      [scope.organizationId, [...bookingIds]],
    );
    for (const row of rows) result.set(row.booking_id, [...(result.get(row.booking_id) ?? []), row.host_user_id]);
    return result;
  }

  /** A page of the list, with its exact total counted (BookingRows.list reads a kept total where it can). */
  list(scope: TenantScope, filters: BookingFilters, page: PageRequest): Promise<[Booking[], number]> {
    return this.listQuery(scope, filters, page).getManyAndCount();
  }

  /** A page of the list, without its total. */
  page(scope: TenantScope, filters: BookingFilters, page: PageRequest): Promise<Booking[]> {
    return this.listQuery(scope, filters, page).getMany();
  }

  private listQuery(scope: TenantScope, filters: BookingFilters, page: PageRequest) {
    const query = this.tx.reads
      .createQueryBuilder(Booking, 'b')
      .where('b.organization_id = :organizationId AND b.livemode = :livemode', scope)
      .orderBy('b.starts_at', 'ASC')
      .addOrderBy('b.id', 'ASC')
      .skip(pageOffset(page))
      .take(page.limit);
    if (filters.status) query.andWhere('b.status = :status', { status: filters.status });
    if (filters.startsFrom) query.andWhere('b.starts_at >= :startsFrom', { startsFrom: filters.startsFrom });
    if (filters.startsBefore) query.andWhere('b.starts_at < :startsBefore', { startsBefore: filters.startsBefore });
    if (filters.eventTypeId) query.andWhere('b.event_type_id = :eventTypeId', { eventTypeId: filters.eventTypeId });
    // Exact, as always; the lower() twin lets bookings_organization_attendee_email_idx find them (not a scan of the organization).
    if (filters.attendeeEmail)
      query.andWhere('lower(b.attendee_email) = lower(:attendeeEmail) AND b.attendee_email = :attendeeEmail', {
        attendeeEmail: filters.attendeeEmail,
      });
    if (filters.seriesId) query.andWhere('b.series_id = :seriesId', { seriesId: filters.seriesId });
    if (filters.noShow) query.andWhere(filters.noShow === 'attendee' ? 'b.no_show_attendee' : 'b.no_show_host');
    if (filters.hostUserId) {
      query.andWhere('EXISTS (SELECT 1 FROM booking_hosts h1 WHERE h1.booking_id = b.id AND h1.host_user_id = :hostUserId)', {
        hostUserId: filters.hostUserId,
      });
    }
    if (filters.hostedBy) {
      query.andWhere('EXISTS (SELECT 1 FROM booking_hosts h2 WHERE h2.booking_id = b.id AND h2.host_user_id = :hostedBy)', {
        hostedBy: filters.hostedBy,
      });
    }
    return query;
  }

  /** Live confirmed and pending bookings `userId` hosts, starting in [from, to), for its calendar feed. */
  async hostedBookings(scope: TenantScope, userId: string, from: Date, to: Date): Promise<Booking[]> {
    return this.tx.reads
      .createQueryBuilder(Booking, 'b')
      .where('b.organization_id = :organizationId AND b.livemode = true', { organizationId: scope.organizationId })
      .andWhere(`b.status IN ${BUSY_STATUSES_SQL}`)
      .andWhere('b.starts_at >= :from AND b.starts_at < :to', { from, to })
      .andWhere('EXISTS (SELECT 1 FROM booking_hosts h WHERE h.booking_id = b.id AND h.host_user_id = :userId)', { userId })
      .orderBy('b.starts_at', 'ASC')
      .addOrderBy('b.id', 'ASC')
      .take(5000)
      .getMany();
  }

  /** The bookings, each with its hosts (one more statement for all of them). */
  private async withHosts(scope: TenantScope, bookings: readonly Booking[]): Promise<BookingWithHosts[]> {
    const hosts = await this.hostsOfMany(
      scope,
      bookings.map((booking) => booking.id),
    );
    return bookings.map((booking) => ({ booking, hostUserIds: hosts.get(booking.id) ?? [] }));
  }
}
