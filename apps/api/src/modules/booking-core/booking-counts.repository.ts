import { Injectable } from '@nestjs/common';
import type { TenantScope } from '@app/common';
import { TransactionHost } from '@app/database';
import type { BookingStatus } from './entities/booking.entity.js';

/**
 * The kept booking counts (`booking_count_deltas`, entities/booking-count-delta.entity.ts): written only by the
 * triggers of migration KeptBookingCounts, read as sums, folded here.
 */
@Injectable()
export class BookingCountsRepository {
  constructor(private readonly tx: TransactionHost) {}

  /** How many bookings the organization has in this mode, of `status` or of every status. */
  async total(scope: TenantScope, status?: BookingStatus): Promise<number> {
    const [{ n }]: { n: string }[] = await this.tx.reads.query(
      `SELECT COALESCE(sum(delta), 0)::bigint AS n FROM booking_count_deltas
        WHERE organization_id = $1 AND livemode = $2 AND ($3::text IS NULL OR status = $3)`,
      [scope.organizationId, scope.livemode, status ?? null],
    );
    return Number(n);
  }

  /**
   * Up to `groups` groups of several rows each become one row each (none when they sum to zero: an organization
   * deleted with its bookings leaves nothing). One statement: a reader's sum sees the rows before or after, never
   * half; a fold running at once on another instance skips the rows this one deleted. Returns how many rows went.
   */
  async fold(groups: number): Promise<{ groups: number; rowsRemoved: number }> {
    const db = this.tx.outside('the fold is a job of its own, in autocommit; the triggers add rows beside it, never wait');
    const [row]: { groups: number; removed: number }[] = await db.query(
      `WITH grouped AS (SELECT organization_id, livemode, status FROM booking_count_deltas
                         GROUP BY 1, 2, 3 HAVING count(*) > 1 LIMIT $1),
            gone AS (DELETE FROM booking_count_deltas d USING grouped g
                      WHERE d.organization_id = g.organization_id AND d.livemode = g.livemode AND d.status = g.status
                      RETURNING d.organization_id, d.livemode, d.status, d.delta),
            kept AS (INSERT INTO booking_count_deltas (organization_id, livemode, status, delta)
                     SELECT organization_id, livemode, status, sum(delta) FROM gone GROUP BY 1, 2, 3 HAVING sum(delta) <> 0
                     RETURNING 1)
       SELECT (SELECT count(*) FROM grouped)::int AS groups, ((SELECT count(*) FROM gone) - (SELECT count(*) FROM kept))::int AS removed`,
      [groups],
    );
    return { groups: row.groups, rowsRemoved: row.removed };
  }
}
