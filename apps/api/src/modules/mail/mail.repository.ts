import { Injectable } from '@nestjs/common';
import { MailMessage } from './entities/mail-message.entity.js';
import type { TenantScope } from '@app/common';
import { TransactionHost } from '@app/database';
import { type Claim, LeaseQueue } from '../../jobs/index.js';

/** The channel `enqueue` notifies and the worker listens on; PostgreSQL delivers it only on commit. */
export const MAIL_OUTBOX_CHANNEL = 'mail_outbox';

export type NewMailRow = Pick<MailMessage, 'id' | 'recipients' | 'about' | 'subject' | 'textBody' | 'htmlBody' | 'ical'>;

/** A message leased to this worker, with the claim its outcome names. */
export type ClaimedMail = MailMessage & { claim: Claim };

/*
 * Every time here is the database's now(), never the injected Clock: tests freeze the Clock, and
 * several instances must agree on when a lease ends and a retry is due.
 */
@Injectable()
export class MailRepository {
  private readonly queue: LeaseQueue<MailRow>;

  constructor(private readonly tx: TransactionHost) {
    this.queue = new LeaseQueue(tx, {
      table: 'mail_outbox',
      waiting: `c.status = 'pending'`,
      dueColumn: 'next_attempt_at',
      order: 'c.next_attempt_at',
      countsAttempts: true,
      returning: 'q.*',
      errorColumn: 'last_error',
    });
  }

  /** Inserts with the caller's manager, so the row and the wake-up commit or roll back with its transaction. */
  async insert(scope: TenantScope, row: NewMailRow): Promise<void> {
    // One round trip for the row and its wake-up: this runs inside booking transactions.
    await this.tx.write(
      `WITH inserted AS (
         INSERT INTO mail_outbox (id, organization_id, recipients, subject, text_body, html_body, ical, about)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id)
       SELECT pg_notify('${MAIL_OUTBOX_CHANNEL}', '') FROM inserted`,
      [
        row.id,
        scope.organizationId,
        row.recipients,
        row.subject,
        row.textBody,
        row.htmlBody,
        row.ical === null ? null : JSON.stringify(row.ical),
        row.about,
      ],
    );
  }

  /**
   * Takes up to `limit` of the oldest due messages and leases them for `leaseSeconds` (the jobs' `LeaseQueue`): the
   * lease keeps other instances away while they are sent, and the attempt counts at the claim, so a message that
   * crashes its worker still runs out of retries.
   */
  async claimDue(limit: number, leaseSeconds: number): Promise<ClaimedMail[]> {
    return (await this.queue.claim(limit, leaseSeconds)).map((row) =>
      Object.assign(mailMessageOf(row), { claim: { id: row.id, lease: row.lease } }),
    );
  }

  /** These messages went out (one statement for a round's successes). A claim that is no longer the row's lease changes nothing. */
  async markSent(claims: readonly Claim[]): Promise<void> {
    await this.queue.finishMany(claims, 'sent', 'sent_at = now()');
  }

  async scheduleRetry(claim: Claim, delaySeconds: number, lastError: string): Promise<void> {
    await this.queue.retry(claim, delaySeconds, lastError);
  }

  async markFailed(claim: Claim, lastError: string): Promise<void> {
    await this.queue.finish(claim, 'failed', lastError);
  }

  /** Milliseconds until the next pending message may be claimed (0 when one is due), or null when none waits. */
  async msUntilNextDue(): Promise<number | null> {
    return this.queue.msUntilNextDue();
  }

  /** Retention: sent mail older than `cutoff` (failed mail stays for operators to look at). */
  async deleteSentBefore(cutoff: Date): Promise<number> {
    const [, count]: [unknown[], number] = await this.tx
      .outside('retention runs as a job of its own, in autocommit')
      .query(`DELETE FROM mail_outbox WHERE status = 'sent' AND created_at < $1`, [cutoff]);
    return count ?? 0;
  }

  /**
   * Erasure: the organization's mail about these records (sent or not: a queued one is dropped, a sent one's body goes),
   * and mail to `address` (any case) that names no record (written before mails named theirs). A mail about a booking not
   * in `about` is left alone even when it goes to `address`: that booking was made after the erasure looked.
   */
  async deleteAbout(scope: TenantScope, about: readonly string[], address: string): Promise<number> {
    const [, count]: [unknown[], number] = await this.tx.transactional.query(
      `DELETE FROM mail_outbox
        WHERE organization_id = $1
          AND (about && $2::text[]
               OR (about = '{}' AND EXISTS (SELECT 1 FROM unnest(recipients) AS r(address) WHERE lower(r.address) = lower($3))))`,
      [scope.organizationId, [...about], address],
    );
    return count ?? 0;
  }

  async deleteOfOrganization(scope: TenantScope): Promise<void> {
    await this.tx.transactional.query(`DELETE FROM mail_outbox WHERE organization_id = $1`, [scope.organizationId]);
  }
}

interface MailRow {
  id: string;
  organization_id: string | null;
  recipients: string[];
  about: string[];
  subject: string;
  text_body: string;
  html_body: string;
  ical: MailMessage['ical'];
  status: MailMessage['status'];
  attempts: number;
  next_attempt_at: Date;
  locked_until: Date | null;
  last_error: string | null;
  sent_at: Date | null;
  created_at: Date;
}

function mailMessageOf(row: MailRow): MailMessage {
  return Object.assign(new MailMessage(), {
    id: row.id,
    organizationId: row.organization_id,
    recipients: row.recipients,
    about: row.about,
    subject: row.subject,
    textBody: row.text_body,
    htmlBody: row.html_body,
    ical: row.ical,
    status: row.status,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at,
    lockedUntil: row.locked_until,
    lastError: row.last_error,
    sentAt: row.sent_at,
    createdAt: row.created_at,
  } satisfies MailMessage);
}
