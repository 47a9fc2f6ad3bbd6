import { Injectable } from '@nestjs/common';
import { MailMessage } from './entities/mail-message.entity.js';
import type { TenantScope } from '@app/common';
import { TransactionHost } from '@app/database';

/** The channel `enqueue` notifies and the worker listens on; PostgreSQL delivers it only on commit. */
export const MAIL_OUTBOX_CHANNEL = 'mail_outbox';

export type NewMailRow = Pick<MailMessage, 'id' | 'recipients' | 'subject' | 'textBody' | 'htmlBody' | 'ical'>;

/*
 * Every time here is the database's now(), never the injected Clock: tests freeze the Clock, and
 * several instances must agree on when a lease ends and a retry is due.
 */
@Injectable()
export class MailRepository {
  constructor(private readonly tx: TransactionHost) {}

  /** Inserts with the caller's manager, so the row and the wake-up commit or roll back with its transaction. */
  async insert(scope: TenantScope, row: NewMailRow): Promise<void> {
    // One round trip for the row and its wake-up: this runs inside booking transactions.
    await this.tx.write(
      `WITH inserted AS (
         INSERT INTO mail_outbox (id, organization_id, recipients, subject, text_body, html_body, ical)
         VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id)
       SELECT pg_notify('${MAIL_OUTBOX_CHANNEL}', '') FROM inserted`,
      [
        row.id,
        scope.organizationId,
        row.recipients,
        row.subject,
        row.textBody,
        row.htmlBody,
        row.ical === null ? null : JSON.stringify(row.ical),
      ],
    );
  }

  /**
   * Takes the oldest due message and leases it for `leaseSeconds`. SKIP LOCKED lets instances claim
   * side by side without waiting on each other; the lease (not the row lock, which ends with this
   * short transaction) keeps the others away while it is sent. Counting the attempt here means a
   * message that crashes its worker still runs out of retries.
   */
  async claimNext(leaseSeconds: number): Promise<MailMessage | null> {
    return this.tx.transaction(async () => {
      const due = await this.tx.transactional
        .createQueryBuilder(MailMessage, 'm')
        .where(`m.status = 'pending'`)
        .andWhere('m.nextAttemptAt <= now()')
        .andWhere('(m.lockedUntil IS NULL OR m.lockedUntil <= now())')
        .orderBy('m.nextAttemptAt', 'ASC')
        .limit(1)
        .setLock('pessimistic_write')
        .setOnLocked('skip_locked')
        .getOne();
      if (!due) return null;
      await this.tx.transactional
        .createQueryBuilder()
        .update(MailMessage)
        .set({
          attempts: () => 'attempts + 1',
          lockedUntil: () => 'now() + make_interval(secs => CAST(:lease AS double precision))',
        })
        .where('id = :id', { id: due.id, lease: leaseSeconds })
        .execute();
      due.attempts += 1;
      return due;
    });
  }

  async markSent(id: string): Promise<void> {
    await this.tx
      .outside('a message’s outcome is written after its send, on its own')
      .createQueryBuilder()
      .update(MailMessage)
      .set({ status: 'sent', sentAt: () => 'now()', lockedUntil: null, lastError: null })
      .where(`id = :id AND status = 'pending'`, { id })
      .execute();
  }

  async scheduleRetry(id: string, delaySeconds: number, lastError: string): Promise<void> {
    await this.tx
      .outside('a message’s outcome is written after its send, on its own')
      .createQueryBuilder()
      .update(MailMessage)
      .set({
        nextAttemptAt: () => 'now() + make_interval(secs => CAST(:delay AS double precision))',
        lockedUntil: null,
        lastError,
      })
      .where(`id = :id AND status = 'pending'`, { id, delay: delaySeconds })
      .execute();
  }

  async markFailed(id: string, lastError: string): Promise<void> {
    await this.tx
      .outside('a message’s outcome is written after its send, on its own')
      .createQueryBuilder()
      .update(MailMessage)
      .set({ status: 'failed', lockedUntil: null, lastError })
      .where(`id = :id AND status = 'pending'`, { id })
      .execute();
  }

  /** Milliseconds until the next pending message may be claimed (0 when one is due), or null when none waits. */
  async msUntilNextDue(): Promise<number | null> {
    const rows: { ms: number | null }[] = await this.tx.outside('the worker’s next wake-up, read between claims').query(
      `SELECT (EXTRACT(EPOCH FROM min(GREATEST(next_attempt_at, COALESCE(locked_until, next_attempt_at))) - now()) * 1000)::float8 AS ms
         FROM mail_outbox
        WHERE status = 'pending'`,
    );
    // GREATEST ignores NULL in PostgreSQL, so clamping happens here: no row must mean null, not 0.
    const ms = rows[0]?.ms ?? null;
    return ms === null ? null : Math.max(0, ms);
  }

  /** Retention: sent mail older than `cutoff` (failed mail stays for operators to look at). */
  async deleteSentBefore(cutoff: Date): Promise<number> {
    const [, count]: [unknown[], number] = await this.tx
      .outside('retention runs as a job of its own, in autocommit')
      .query(`DELETE FROM mail_outbox WHERE status = 'sent' AND created_at < $1`, [cutoff]);
    return count ?? 0;
  }

  async deleteOfOrganization(scope: TenantScope): Promise<void> {
    await this.tx.transactional.query(`DELETE FROM mail_outbox WHERE organization_id = $1`, [scope.organizationId]);
  }
}
