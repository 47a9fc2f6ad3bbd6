import { Injectable } from '@nestjs/common';
import type { TenantScope } from '@app/common';
import { TransactionHost } from '@app/database';
import { type Claim, LeaseQueue } from '../../jobs/index.js';
import { CalendarWrite, type CalendarWriteAction } from './entities/calendar-write.entity.js';

export const CALENDAR_WRITES_CHANNEL = 'calendar_writes';

/** A write-back leased to this worker, with the claim its outcome names. */
export type ClaimedWrite = CalendarWrite & { claim: Claim };

/**
 * The write-backs of bookings to hosts' calendars: recorded in the booking's transaction, erased with an attendee,
 * and their job queue across organizations (the jobs framework claims every organization's due rows at once).
 */
@Injectable()
export class CalendarWritesRepository {
  private readonly writes: LeaseQueue<{ id: string }>;

  constructor(private readonly tx: TransactionHost) {
    this.writes = new LeaseQueue(tx, {
      table: 'calendar_writes',
      waiting: `c.status = 'pending'`,
      dueColumn: 'next_attempt_at',
      // Writes of one booking to one host go in the order they were decided (seq), one at a time: none while an earlier
      // one is pending, leased (its PUT in flight) or not. An earlier write leaves `pending` only by its own outcome (an
      // erasure no longer deletes one: it clears its body), so a later write never overtakes one still under way.
      claimable: `NOT EXISTS (SELECT 1 FROM calendar_writes e
                               WHERE e.booking_id = c.booking_id AND e.user_id = c.user_id AND e.status = 'pending'
                                 AND e.organization_id = c.organization_id AND e.seq < c.seq)`,
      order: 'c.created_at, c.id',
      countsAttempts: true,
      returning: 'q.id',
      errorColumn: 'last_error',
    });
  }

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
   * Erasure: the bookings' write-back bodies, in the erasing transaction. Returns each booking and host whose latest
   * write (in decided order) is a PUT (the calendar has the booking or was about to), read before the bodies go. No row
   * is deleted: a queued PUT keeps its place in the order without its body (the worker then finishes it without a
   * request), and one a worker has leased, its PUT perhaps in flight, stays pending until its worker is done, so the
   * erased PUT queued after it is carried out after it, whichever worker finishes first.
   */
  async eraseBodies(scope: TenantScope, bookingIds: readonly string[]): Promise<{ bookingId: string; userId: string }[]> {
    const rows: { booking_id: string; user_id: string }[] = await this.tx.transactional.query(
      `SELECT booking_id, user_id FROM (
         SELECT DISTINCT ON (booking_id, user_id) booking_id, user_id, action FROM calendar_writes
          WHERE organization_id = $1 AND booking_id = ANY($2::text[])
          ORDER BY booking_id, user_id, seq DESC) latest
        WHERE action = 'put'`,
      [scope.organizationId, [...bookingIds]],
    );
    await this.tx.transactional.query(
      `UPDATE calendar_writes SET ics = NULL WHERE organization_id = $1 AND booking_id = ANY($2::text[]) AND ics IS NOT NULL`,
      [scope.organizationId, [...bookingIds]],
    );
    return rows.map((row) => ({ bookingId: row.booking_id, userId: row.user_id }));
  }

  /**
   * Job: up to `limit` finished write-backs (done or failed) recorded before `cutoff` lose their body (the booking's
   * `.ics`: the attendee's name and email), across organizations; returns how many changed. The rows themselves stay:
   * an erasure reads the latest write of each booking and host to learn whether a calendar has the booking.
   */
  async clearFinishedBodiesBefore(cutoff: Date, limit: number): Promise<number> {
    const [, count]: [unknown[], number] = await this.tx.outside('retention runs as a job of its own, in autocommit').query(
      `WITH finished AS (SELECT id FROM calendar_writes
                            WHERE ics IS NOT NULL AND status IN ('done', 'failed') AND created_at < $1
                            LIMIT $2 FOR UPDATE SKIP LOCKED)
         UPDATE calendar_writes w SET ics = NULL FROM finished f WHERE w.id = f.id`,
      [cutoff, limit],
    );
    return count ?? 0;
  }
  /** Job queue: leases up to `limit` due write-backs, the oldest first (a write never overtakes an earlier one of its booking and host). */
  async claimWrites(limit: number, leaseSeconds: number): Promise<ClaimedWrite[]> {
    const claims = await this.writes.claim(limit, leaseSeconds);
    if (claims.length === 0) return [];
    const writes = await this.tx.reads.find(CalendarWrite, {
      where: claims.map(({ id }) => ({ id })),
      order: { seq: 'ASC' },
    });
    return withClaims(writes, claims);
  }

  /*
   * A write's outcomes name its claim: a worker whose lease ran out while the calendar server was slow, and whose write
   * another worker has claimed since, changes nothing.
   */
  async finishWrite(claim: Claim): Promise<void> {
    await this.writes.finish(claim, 'done');
  }

  async retryWrite(claim: Claim, delaySeconds: number, error: string): Promise<void> {
    await this.writes.retry(claim, delaySeconds, error);
  }

  /** Job queue: the write waits (still pending) and the attempt it was claimed for does not count. */
  async holdWrite(claim: Claim, delaySeconds: number, error: string): Promise<void> {
    await this.writes.retry(claim, delaySeconds, error, { refund: true });
  }

  /** Its run met a database outage: the attempt is handed back and it goes again shortly (LeaseQueue.setBack); false otherwise. */
  setBack(claim: Claim, error: unknown): Promise<boolean> {
    return this.writes.setBack(claim, error);
  }

  async failWrite(claim: Claim, error: string): Promise<void> {
    await this.writes.finish(claim, 'failed', error);
  }

  /** Job queue: milliseconds until the next write-back is due, or null when none is pending. */
  async msUntilNextWrite(): Promise<number | null> {
    return this.writes.msUntilNextDue();
  }
}

/** Each found row with the claim that leased it (a row deleted since its claim is simply not found). */
function withClaims<T extends { id: string }>(rows: T[], claims: readonly Claim[]): (T & { claim: Claim })[] {
  const leases = new Map(claims.map((claim) => [claim.id, claim.lease]));
  return rows.map((row) => Object.assign(row, { claim: { id: row.id, lease: leases.get(row.id)! } }));
}
