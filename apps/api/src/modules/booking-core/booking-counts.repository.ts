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
   * Folds up to `rows` rows, the oldest first, of up to `groups` groups that have several, into one row per group
   * (none when they sum to zero: an organization deleted with its bookings leaves nothing). A group larger than `rows`
   * (a backlog while no job ran) goes over several calls, each bounded. One statement: a reader's sum sees the rows
   * before or after it, never half. The rows are locked SKIP LOCKED, so folds on several instances at once share
   * the rows out rather than wait for (or deadlock with) each other.
   */
  async fold(groups: number, rows: number): Promise<{ groups: number; taken: number; removed: number }> {
    const db = this.tx.outside('the fold is a job of its own, in autocommit; the triggers add rows beside it, never wait');
    const [row]: { groups: number; taken: number; removed: number }[] = await db.query(
      `WITH grouped AS (SELECT organization_id, livemode, status FROM booking_count_deltas
                         GROUP BY 1, 2, 3 HAVING count(*) > 1 LIMIT $1),
            picked AS (SELECT d.id FROM booking_count_deltas d
                         JOIN grouped g ON d.organization_id = g.organization_id AND d.livemode = g.livemode AND d.status = g.status
                        ORDER BY d.id LIMIT $2 FOR UPDATE OF d SKIP LOCKED),
            gone AS (DELETE FROM booking_count_deltas d USING picked p WHERE d.id = p.id
                      RETURNING d.organization_id, d.livemode, d.status, d.delta),
            kept AS (INSERT INTO booking_count_deltas (organization_id, livemode, status, delta)
                     SELECT organization_id, livemode, status, sum(delta) FROM gone GROUP BY 1, 2, 3 HAVING sum(delta) <> 0
                     RETURNING 1)
       SELECT (SELECT count(*) FROM grouped)::int AS groups, (SELECT count(*) FROM gone)::int AS taken,
              ((SELECT count(*) FROM gone) - (SELECT count(*) FROM kept))::int AS removed`,
      [groups, rows],
    );
    return row;
  }
}
