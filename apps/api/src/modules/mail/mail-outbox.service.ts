import { Injectable } from '@nestjs/common';
import { newId, type TenantScope } from '@app/common';
import { MailRepository } from './mail.repository.js';
import type { OutgoingMail } from './mail.types.js';

/**
 * The one writer features use for mail. Recording it in the caller's transaction means a mail exists
 * exactly when the change that caused it committed; `MailWorker` sends it afterwards.
 */
@Injectable()
export class MailOutbox {
  constructor(private readonly repository: MailRepository) {}

  /** Returns the `mail_…` id. Call it inside the transaction that causes the mail. */
  async enqueue(scope: TenantScope, mail: OutgoingMail): Promise<string> {
    if (mail.to.length === 0) throw new Error('A mail needs at least one recipient');
    const id = newId('mail');
    await this.repository.insert(scope, {
      id,
      recipients: [...mail.to],
      about: [...(mail.about ?? [])],
      subject: mail.subject,
      textBody: mail.text,
      htmlBody: mail.html,
      ical: mail.ical ? { method: mail.ical.method, filename: mail.ical.filename, content: mail.ical.content } : null,
    });
    return id;
  }

  /**
   * Erasure (contract § 18): every mail about these bookings, to anyone, sent or not, and older mail to the attendee's
   * address, in the caller's transaction. A worker sending one of them right now finishes for nothing (its outcome
   * names a row that is gone). Returns how many went.
   */
  eraseAbout(scope: TenantScope, bookingIds: readonly string[], attendeeEmail: string): Promise<number> {
    return this.repository.deleteAbout(scope, bookingIds, attendeeEmail);
  }

  /** A deleted organization's mail, sent or not (no foreign key ties these rows to it). */
  async deleteOfOrganization(scope: TenantScope): Promise<void> {
    await this.repository.deleteOfOrganization(scope);
  }
}
