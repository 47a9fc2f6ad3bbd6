import { Injectable } from '@nestjs/common';
import type { TenantScope } from '@app/common';
import { TransactionHost } from '@app/database';
import { CalendarConnection } from './entities/calendar-connection.entity.js';
import { CalendarWrite, type CalendarWriteAction } from './entities/calendar-write.entity.js';

export const CALENDAR_WRITES_CHANNEL = 'calendar_writes';

/**
 * The two job queues of the calendars module, across organizations (the jobs framework claims every organization's
 * due rows at once): connections due for a sync, and write-backs of bookings to hosts' calendars. Like
 * WebhookQueueRepository beside WebhooksRepository.
 */
@Injectable()
export class CalendarQueueRepository {
  constructor(private readonly tx: TransactionHost) {}

  /** Write-back: one pending write per booking and host, in the caller's transaction (woken on commit). */
  async recordWrites(
    scope: TenantScope,
    writes: readonly { id: string; bookingId: string; userId: string; ics: string | null }[],
    action: CalendarWriteAction,
  ): Promise<void> {
    await this.tx.write(
      `WITH inserted AS (
         INSERT INTO calendar_writes (id, organization_id, booking_id, user_id, action, ics, status, attempts, next_attempt_at, created_at)
         SELECT w.id, $1, w.booking_id, w.user_id, $2, w.ics, 'pending', 0, now(), now()
           FROM unnest($3::text[], $4::text[], $5::text[], $6::text[]) AS w(id, booking_id, user_id, ics)
         RETURNING id)
       SELECT pg_notify('${CALENDAR_WRITES_CHANNEL}', '') FROM inserted LIMIT 1`,
      [
        scope.organizationId,
        action,
        writes.map((write) => write.id),
        writes.map((write) => write.bookingId),
        writes.map((write) => write.userId),
        writes.map((write) => write.ics),
      ],
    );
  }

  /**
   * Job queue: leases up to `limit` connections due for a sync, across organizations. SKIP LOCKED lets
   * instances claim side by side; the lease keeps one connection with one worker at a time.
   */
  async claimDue(limit: number, leaseSeconds: number): Promise<CalendarConnection[]> {
    const ids: { id: string }[] = await this.tx.outside('a claim commits at once, so other workers skip what it took').query(
      `WITH claimed AS (
         UPDATE calendar_connections SET locked_until = now() + make_interval(secs => $2)
          WHERE id IN (SELECT id FROM calendar_connections
                        WHERE next_sync_at <= now() AND (locked_until IS NULL OR locked_until <= now())
                        ORDER BY next_sync_at LIMIT $1 FOR UPDATE SKIP LOCKED)
          RETURNING id)
       SELECT id FROM claimed`,
      [limit, leaseSeconds],
    );
    if (ids.length === 0) return [];
    return this.tx.reads.find(CalendarConnection, { where: ids.map(({ id }) => ({ id })) });
  }

  /** Job queue: the lease ends with the sync. */
  async release(id: string): Promise<void> {
    await this.tx
      .outside('a job’s outcome is written after its work, on its own')
      .query(`UPDATE calendar_connections SET locked_until = NULL WHERE id = $1`, [id]);
  }

  /** Job queue: milliseconds until the next connection is due, or null when none is. */
  async msUntilNextDue(): Promise<number | null> {
    const rows: { ms: number | null }[] = await this.tx.reads.query(
      // greatest() skips NULLs: without the CASE, no connection at all would read as "due now".
      `SELECT CASE WHEN min(next_sync_at) IS NULL THEN NULL
                  ELSE greatest(0, extract(epoch FROM min(next_sync_at) - now()) * 1000)::float8 END AS ms
         FROM calendar_connections
        WHERE locked_until IS NULL OR locked_until <= now()`,
    );
    return rows[0]?.ms ?? null;
  }

  /**
   * Job queue: leases up to `limit` due write-backs across organizations, the oldest first, skipping a
   * booking whose earlier write is still pending (a delete never overtakes its put).
   */
  async claimWrites(limit: number, leaseSeconds: number): Promise<CalendarWrite[]> {
    const rows: { id: string }[] = await this.tx.outside('a claim commits at once, so other workers skip what it took').query(
      `WITH claimed AS (
         UPDATE calendar_writes SET locked_until = now() + make_interval(secs => $2), attempts = attempts + 1
          WHERE id IN (SELECT w.id FROM calendar_writes w
                        WHERE w.status = 'pending' AND w.next_attempt_at <= now() AND (w.locked_until IS NULL OR w.locked_until <= now())
                          AND NOT EXISTS (SELECT 1 FROM calendar_writes e
                                           WHERE e.booking_id = w.booking_id AND e.user_id = w.user_id AND e.status = 'pending'
                                             AND (e.created_at, e.id) < (w.created_at, w.id))
                        ORDER BY w.created_at, w.id LIMIT $1 FOR UPDATE SKIP LOCKED)
          RETURNING id)
       SELECT id FROM claimed`,
      [limit, leaseSeconds],
    );
    if (rows.length === 0) return [];
    return this.tx.reads.find(CalendarWrite, { where: rows.map(({ id }) => ({ id })), order: { createdAt: 'ASC', id: 'ASC' } });
  }

  /** Job queue. */
  async finishWrite(id: string): Promise<void> {
    await this.tx
      .outside('a job’s outcome is written after its work, on its own')
      .query(`UPDATE calendar_writes SET status = 'done', locked_until = NULL, last_error = NULL WHERE id = $1`, [id]);
  }

  /** Job queue. */
  async retryWrite(id: string, delaySeconds: number, error: string): Promise<void> {
    await this.tx
      .outside('a job’s outcome is written after its work, on its own')
      .query(
        `UPDATE calendar_writes SET locked_until = NULL, last_error = $3, next_attempt_at = now() + make_interval(secs => $2) WHERE id = $1`,
        [id, delaySeconds, error],
      );
  }

  /** Job queue: the write waits (still pending) and the attempt it was claimed for does not count. */
  async holdWrite(id: string, delaySeconds: number, error: string): Promise<void> {
    await this.tx.outside('a job’s outcome is written after its work, on its own').query(
      `UPDATE calendar_writes SET locked_until = NULL, last_error = $3, attempts = greatest(attempts - 1, 0),
              next_attempt_at = now() + make_interval(secs => $2) WHERE id = $1`,
      [id, delaySeconds, error],
    );
  }

  async failWrite(id: string, error: string): Promise<void> {
    await this.tx
      .outside('a job’s outcome is written after its work, on its own')
      .query(`UPDATE calendar_writes SET status = 'failed', locked_until = NULL, last_error = $2 WHERE id = $1`, [id, error]);
  }

  /** Job queue: milliseconds until the next write-back is due, or null when none is pending. */
  async msUntilNextWrite(): Promise<number | null> {
    const rows: { ms: number | null }[] = await this.tx.reads.query(
      `SELECT (extract(epoch FROM min(greatest(next_attempt_at, coalesce(locked_until, next_attempt_at))) - now()) * 1000)::float8 AS ms
         FROM calendar_writes WHERE status = 'pending'`,
    );
    const ms = rows[0]?.ms ?? null;
    return ms === null ? null : Math.max(0, ms);
  }
}
