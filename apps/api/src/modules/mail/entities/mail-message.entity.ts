import { Check, Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';
import type { MailIcal, MailStatus } from '../mail.types.js';

/** One row of the transactional outbox: written in the caller's transaction, sent after commit by `MailWorker`. */
@Entity('mail_outbox')
@Check('mail_outbox_status_check', `"status" IN ('pending', 'sent', 'failed')`)
@Index('mail_outbox_due_idx', ['nextAttemptAt'], { where: `"status" = 'pending'` })
// The queue's next wake-up finds the rows leased now by this (LeaseQueue); only they have a lease end.
@Index('mail_outbox_leased_idx', ['lockedUntil'], { where: '"locked_until" IS NOT NULL' })
// queue_jobs{state="failed"} counts these on every scrape: an index of the few failed rows, not a scan of sent mail.
@Index('mail_outbox_failed_idx', ['nextAttemptAt'], { where: `"status" = 'failed'` })
// Erasure finds the mail about its records (GIN over about) and the mail that names none (migration VolumeIndexes).
@Index('mail_outbox_about_idx', { synchronize: false })
@Index('mail_outbox_unnamed_idx', { synchronize: false })
export class MailMessage {
  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ type: 'text', nullable: true })
  organizationId!: string | null;

  @Column({ type: 'text', array: true })
  recipients!: string[];

  /** The records the mail tells of (booking ids), so erasing an attendee finds the hosts' mails about them too. */
  @Column({ type: 'text', array: true, default: '{}' })
  about!: string[];

  @Column({ type: 'text' })
  subject!: string;

  @Column({ type: 'text' })
  textBody!: string;

  @Column({ type: 'text' })
  htmlBody!: string;

  @Column({ type: 'jsonb', nullable: true })
  ical!: MailIcal | null;

  @Column({ type: 'text', default: 'pending' })
  status!: MailStatus;

  @Column({ type: 'int', default: 0 })
  attempts!: number;

  @Column({ type: 'timestamptz', default: () => 'now()' })
  nextAttemptAt!: Date;

  /** A lease, not a lock: a crashed worker's claim simply expires. */
  @Column({ type: 'timestamptz', nullable: true })
  lockedUntil!: Date | null;

  @Column({ type: 'text', nullable: true })
  lastError!: string | null;

  @Column({ type: 'timestamptz', nullable: true })
  sentAt!: Date | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt!: Date;
}
