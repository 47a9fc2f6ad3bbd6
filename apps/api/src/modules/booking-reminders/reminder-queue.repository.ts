import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@app/database';

/** A due reminder as the sender claims it, with what decides its fate. */
export interface DueReminder {
  organizationId: string;
  bookingId: string;
  minutesBefore: number;
  livemode: boolean;
  status: string;
  startsAt: Date;
}

/** Which reminders: three arrays of one length, for `unnest`. */
function keyArrays(keys: readonly DueReminder[]): [string[], string[], number[]] {
  return [keys.map((k) => k.organizationId), keys.map((k) => k.bookingId), keys.map((k) => k.minutesBefore)];
}

const MATCHES_KEYS = `(r.organization_id, r.booking_id, r.minutes_before) IN
  (SELECT * FROM unnest($1::text[], $2::text[], $3::integer[]))`;

/**
 * The sender's side of booking_reminders (api-rules.md § Reminders), over every organization at once (the jobs
 * framework). Claims lock rows until the sender's transaction ends, which also writes the mails and the event: a
 * claim never outlives what it sends, so there is no lease to run out.
 */
@Injectable()
export class ReminderQueueRepository {
  constructor(private readonly tx: TransactionHost) {}

  /** Up to `limit` reminders due at `now`, earliest first, locked (`SKIP LOCKED`: instances claim side by side). */
  async claimDue(now: Date, limit: number): Promise<DueReminder[]> {
    const rows: {
      organization_id: string;
      booking_id: string;
      minutes_before: number;
      livemode: boolean;
      status: string;
      starts_at: Date;
    }[] = await this.tx.transactional.query(
      `SELECT r.organization_id, r.booking_id, r.minutes_before, b.livemode, b.status, b.starts_at
         FROM booking_reminders r JOIN bookings b ON b.id = r.booking_id
        WHERE r.sent_at IS NULL AND NOT r.missed AND r.due_at <= $1
        ORDER BY r.due_at
        LIMIT $2
          FOR UPDATE OF r SKIP LOCKED`,
      [now, limit],
    );
    return rows.map((row) => ({
      organizationId: row.organization_id,
      bookingId: row.booking_id,
      minutesBefore: row.minutes_before,
      livemode: row.livemode,
      status: row.status,
      startsAt: row.starts_at,
    }));
  }

  async markSent(keys: readonly DueReminder[], at: Date): Promise<void> {
    if (keys.length > 0) await this.tx.write(`UPDATE booking_reminders r SET sent_at = $4 WHERE ${MATCHES_KEYS}`, [...keyArrays(keys), at]);
  }

  /** The meeting had started when they were claimed: never sent. */
  async markMissed(keys: readonly DueReminder[]): Promise<void> {
    if (keys.length > 0) await this.tx.write(`UPDATE booking_reminders r SET missed = true WHERE ${MATCHES_KEYS}`, keyArrays(keys));
  }

  /** No longer due: the booking is not confirmed, or its event type no longer has the reminder. */
  async remove(keys: readonly DueReminder[]): Promise<void> {
    if (keys.length > 0) await this.tx.write(`DELETE FROM booking_reminders r WHERE ${MATCHES_KEYS}`, keyArrays(keys));
  }

  /** Milliseconds from `now` to the next unsent reminder (0 when one is due), or null when none is waiting. */
  async msUntilNextDue(now: Date): Promise<number | null> {
    const rows: { due_at: Date }[] = await this.tx.reads.query(
      `SELECT due_at FROM booking_reminders WHERE sent_at IS NULL AND NOT missed ORDER BY due_at LIMIT 1`,
    );
    return rows.length === 0 ? null : Math.max(0, rows[0].due_at.getTime() - now.getTime());
  }
}
