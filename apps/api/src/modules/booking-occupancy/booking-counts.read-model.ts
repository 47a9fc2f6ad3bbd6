import { Injectable, Module } from '@nestjs/common';
import type { TenantScope } from '@app/common';
import { TransactionHost } from '@app/database';
import { BUSY_STATUSES_SQL } from './booking-status.js';
import { hostLockKeys, LOCK_HOSTS_SQL } from './host-locks.js';

/**
 * What the bookings module answers about counts, for the event-types module's `bookingsCount`. A module
 * of its own so that event-types can ask it without depending on everything bookings depends on.
 */
@Injectable()
export class BookingCounts {
  constructor(private readonly tx: TransactionHost) {}

  /** Confirmed and pending bookings per event type in the scope's mode, in one grouped query. */
  async activeByEventType(scope: TenantScope, eventTypeIds: readonly string[]): Promise<Map<string, number>> {
    const counts = new Map<string, number>(eventTypeIds.map((id) => [id, 0]));
    if (eventTypeIds.length === 0) return counts;
    const rows: { event_type_id: string; count: number }[] = await this.tx.reads.query(
      `SELECT event_type_id, count(*)::int AS count
         FROM bookings
        WHERE organization_id = $1 AND livemode = $2 AND event_type_id = ANY($3::text[]) AND status IN ${BUSY_STATUSES_SQL}
        GROUP BY event_type_id`,
      [scope.organizationId, scope.livemode, [...eventTypeIds]],
    );
    for (const row of rows) counts.set(row.event_type_id, row.count);
    return counts;
  }

  /**
   * Takes the hosts' booking locks of both modes until the caller's transaction ends, in the order every booking
   * takes them. A change that will count seats takes them before it locks its event type row: a booking holds its
   * hosts' locks before its insert reads that row (FOR KEY SHARE), so the other order could deadlock.
   */
  async lockHosts(_scope: TenantScope, hostUserIds: readonly string[]): Promise<void> {
    if (hostUserIds.length === 0) return;
    await this.tx.transactional.query(LOCK_HOSTS_SQL, [[...hostLockKeys(false, hostUserIds), ...hostLockKeys(true, hostUserIds)]]);
  }

  /**
   * The most seats (bookings and live holds) taken at one future start of the event type with one host, in
   * either mode, under the hosts' booking locks of both modes (held until the caller's transaction ends): no
   * seat can be taken between this count and the caller's change of `seatsPerSlot`.
   */
  async mostSeatsTaken(scope: TenantScope, eventTypeId: string, hostUserIds: readonly string[], now: Date): Promise<number> {
    await this.lockHosts(scope, hostUserIds);
    const [row]: { most: number }[] = await this.tx.transactional.query(
      `SELECT coalesce(max(taken), 0)::int AS most
         FROM (SELECT count(*) AS taken FROM booking_hosts
                WHERE organization_id = $1 AND event_type_id = $2 AND lower(during) > $3
                  AND (status IN ${BUSY_STATUSES_SQL} OR (status = 'held' AND expires_at > $3))
                GROUP BY host_user_id, livemode, lower(during)) starts`,
      [scope.organizationId, eventTypeId, now],
    );
    return row.most;
  }

  /**
   * For each span (a user's out-of-office entry), the confirmed and pending bookings in the scope's mode the user
   * hosts whose meeting overlaps it and starts after `now`, by start, at most `limit` each: one statement for a page.
   */
  async hostedWithin(
    scope: TenantScope,
    spans: readonly { userId: string; startsAt: Date; endsAt: Date }[],
    now: Date,
    limit: number,
  ): Promise<{ id: string; startsAt: Date; status: string }[][]> {
    if (spans.length === 0) return [];
    const rows: { i: string; id: string; starts_at: Date; status: string }[] = await this.tx.reads.query(
      `SELECT s.i, b.id, b.starts_at, b.status
         FROM unnest($2::text[], $3::timestamptz[], $4::timestamptz[]) WITH ORDINALITY AS s(user_id, starts_at, ends_at, i)
         JOIN LATERAL (SELECT bh.booking_id FROM booking_hosts bh
                        WHERE bh.organization_id = $1 AND bh.livemode = $5 AND bh.host_user_id = s.user_id
                          AND bh.status IN ${BUSY_STATUSES_SQL} AND bh.during && tstzrange(s.starts_at, s.ends_at, '[)')
                          AND lower(bh.during) > $6
                        ORDER BY lower(bh.during), bh.booking_id LIMIT $7) h ON true
         JOIN bookings b ON b.id = h.booking_id
        ORDER BY s.i, b.starts_at, b.id`,
      [
        scope.organizationId,
        spans.map((span) => span.userId),
        spans.map((span) => span.startsAt),
        spans.map((span) => span.endsAt),
        scope.livemode,
        now,
        limit,
      ],
    );
    const lists = spans.map((): { id: string; startsAt: Date; status: string }[] => []);
    for (const row of rows) lists[Number(row.i) - 1].push({ id: row.id, startsAt: row.starts_at, status: row.status });
    return lists;
  }
}

@Module({ providers: [BookingCounts], exports: [BookingCounts] })
export class BookingCountsModule {}
