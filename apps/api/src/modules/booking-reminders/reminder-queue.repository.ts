import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@app/database';
import { type Claim, LeaseQueue, leaseOf } from '../../jobs/index.js';

/** A due reminder as the sender claims it (with its claim's lease), with what decides its fate. */
export interface DueReminder extends Claim {
  organizationId: string;
  bookingId: string;
  minutesBefore: number;
  /** Rounds that claimed it, this one included. */
  attempts: number;
  livemode: boolean;
  status: string;
  startsAt: Date;
}

/** What a round did with a claimed reminder. */
export type ReminderOutcome = 'sent' | 'missed' | 'dropped';

interface ClaimedRow {
  id: string;
  lease: string;
  organization_id: string;
  booking_id: string;
  minutes_before: number;
  attempts: number;
  livemode: boolean;
  status: string;
  starts_at: Date;
}

const WAITING = 'c.sent_at IS NULL AND NOT c.missed';

/**
 * The sender's side of booking_reminders (api-rules.md § Reminders), over every organization at once (the jobs
 * framework), on the one LeaseQueue: a claim leases due rows (by the Clock's now: `due_at` is a booking's start minus
 * minutes) and counts an attempt; what a round did is written in the transaction of its mails and events, fenced by
 * each claim's lease, so a round whose lease another sender has taken over writes nothing at all.
 */
@Injectable()
export class ReminderQueueRepository {
  private readonly queue: LeaseQueue<ClaimedRow>;

  constructor(private readonly tx: TransactionHost) {
    this.queue = new LeaseQueue(tx, {
      table: 'booking_reminders',
      waiting: WAITING,
      dueColumn: 'due_at',
      dueOnClock: true,
      join: 'JOIN bookings b ON b.id = c.booking_id',
      carry: 'b.livemode, b.status, b.starts_at',
      order: 'c.due_at',
      countsAttempts: true,
      returning: 'q.id, q.organization_id, q.booking_id, q.minutes_before, q.attempts, due.livemode, due.status, due.starts_at',
    });
  }

  /** Up to `limit` reminders due at `now` (the Clock's), earliest first, leased for `leaseSeconds`. */
  async claimDue(now: Date, limit: number, leaseSeconds: number): Promise<DueReminder[]> {
    const rows = await this.queue.claim(limit, leaseSeconds, now);
    return rows.map((row) => ({
      id: row.id,
      lease: row.lease,
      organizationId: row.organization_id,
      bookingId: row.booking_id,
      minutesBefore: row.minutes_before,
      attempts: row.attempts,
      livemode: row.livemode,
      status: row.status,
      startsAt: row.starts_at,
    }));
  }

  /**
   * In the round's transaction, one statement: sent ones get `sent_at = at`, missed ones `missed`, dropped ones go;
   * each only while its claim's lease is still the row's. How many it wrote (fewer than given: a claim went stale).
   */
  async settle(outcomes: readonly { claim: Claim; outcome: ReminderOutcome }[], at: Date): Promise<number> {
    if (outcomes.length === 0) return 0;
    const rows: { n: number }[] = await this.tx.transactional.query(
      `WITH k AS (SELECT * FROM unnest($1::text[], $2::text[], $3::text[]) AS k(id, lease, outcome)),
       gone AS (
         DELETE FROM booking_reminders c USING k
          WHERE c.id = k.id AND ${leaseOf('c')} = k.lease AND k.outcome = 'dropped' AND ${WAITING}
         RETURNING c.id),
       done AS (
         UPDATE booking_reminders c
            SET locked_until = NULL, last_error = NULL, missed = (k.outcome = 'missed'),
                sent_at = CASE WHEN k.outcome = 'sent' THEN $4::timestamptz END
           FROM k
          WHERE c.id = k.id AND ${leaseOf('c')} = k.lease AND k.outcome <> 'dropped' AND ${WAITING}
         RETURNING c.id)
       SELECT ((SELECT count(*) FROM gone) + (SELECT count(*) FROM done))::int AS n`,
      [outcomes.map((one) => one.claim.id), outcomes.map((one) => one.claim.lease), outcomes.map((one) => one.outcome), at],
    );
    return rows[0]?.n ?? 0;
  }

  /** Its run met an outage: the attempt is handed back and it goes again shortly (LeaseQueue.setBack); false otherwise. */
  setBack(claim: Claim, error: unknown): Promise<boolean> {
    return this.queue.setBack(claim, error);
  }

  /** Its round failed: it stays leased (no one claims it) for `delaySeconds`, with the error. False when the claim is stale. */
  async retry(claim: Claim, delaySeconds: number, error: string): Promise<boolean> {
    return this.outcome(`locked_until = now() + make_interval(secs => CAST($3 AS double precision)), last_error = $4`, [
      claim.id,
      claim.lease,
      delaySeconds,
      error,
    ]);
  }

  /** Its retries are spent: parked as missed (never sent) with its error. False when the claim is stale. */
  async park(claim: Claim, error: string): Promise<boolean> {
    return this.outcome(`locked_until = NULL, missed = true, last_error = $3`, [claim.id, claim.lease, error]);
  }

  /** Milliseconds from `now` (the Clock's) to the next reminder a claim may take (0 when one is due), or null when none waits. */
  msUntilNextDue(now: Date): Promise<number | null> {
    return this.queue.msUntilNextDue(now);
  }

  private async outcome(set: string, values: unknown[]): Promise<boolean> {
    const [, count]: [unknown[], number] = await this.tx
      .outside('a failed reminder’s outcome is written after its round rolled back')
      .query(`UPDATE booking_reminders c SET ${set} WHERE id = $1 AND ${leaseOf('c')} = $2 AND ${WAITING}`, values);
    return count > 0;
  }
}
