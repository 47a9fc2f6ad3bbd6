import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig, Clock, jobTenantScope, type TenantScope } from '@app/common';
import { TransactionHost } from '@app/database';
import { JobLoop, type TickResult } from '../../jobs/index.js';
import { BookingEffectsService, type DueBookingReminder } from '../booking-effects/index.js';
import { BOOKING_REMINDERS_CHANNEL } from './booking-reminders.repository.js';
import { BookingRows } from '../booking-core/index.js';
import { type DueReminder, ReminderQueueRepository } from './reminder-queue.repository.js';

/** Reminders per transaction: one claim, one read of their bookings per organization, one batch of writes. */
export const REMINDER_BATCH = 100;

/** The pause when what is due is locked by other senders' rounds (they commit within a round's time). */
const BUSY_ELSEWHERE_MS = 200;

/** What one round did with what it claimed. */
export interface ReminderRound {
  sent: number;
  missed: number;
  dropped: number;
}

/**
 * Sends due reminders (api-rules.md § Reminders) on the jobs framework: each round claims up to REMINDER_BATCH due
 * rows (`FOR UPDATE SKIP LOCKED`, so instances and workers share them) and, in that same transaction, writes their
 * mails and `booking.reminder` events to the outboxes and marks them sent. A process killed mid-round rolls all of it
 * back and the rows are claimed again: nothing is lost and nothing goes twice. Time is the injectable Clock: a
 * reminder is due when `due_at <= now`, missed when the meeting started before it was claimed.
 */
@Injectable()
export class ReminderSenderWorker implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(ReminderSenderWorker.name);
  private readonly loop: JobLoop;

  constructor(
    private readonly config: AppConfig,
    private readonly tx: TransactionHost,
    private readonly queue: ReminderQueueRepository,
    private readonly bookings: BookingRows,
    private readonly effects: BookingEffectsService,
    private readonly clock: Clock,
  ) {
    this.loop = new JobLoop({
      name: 'reminder-sender',
      logger: this.logger,
      pollIntervalMs: config.remindersPollMs,
      listen: config.databaseUrl ? { databaseUrl: config.databaseUrl, channel: BOOKING_REMINDERS_CHANNEL } : undefined,
      tick: () => this.tick(),
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.runWorkers && this.config.databaseUrl) await this.loop.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.loop.stop();
  }

  /** Nothing due: one read of the next due time, no transaction (the idle cost, docs/performance.md). */
  private async tick(): Promise<TickResult> {
    const wait = await this.queue.msUntilNextDue(this.clock.now());
    if (wait === null || wait > 0) return wait ?? undefined;
    const round = await this.sendDue();
    if (round.sent + round.missed > 0) this.logger.log({ msg: 'Reminders sent', ...round });
    // Due, but every due row is another sender's round: look again shortly rather than at once.
    return round.sent + round.missed + round.dropped > 0 ? 'again' : BUSY_ELSEWHERE_MS;
  }

  /** One round, in one transaction. */
  async sendDue(): Promise<ReminderRound> {
    return this.tx.transaction(async () => {
      const now = this.clock.now();
      const due = await this.queue.claimDue(now, REMINDER_BATCH);
      const missed = due.filter((one) => one.status === 'confirmed' && one.startsAt.getTime() <= now.getTime());
      const dropped = due.filter((one) => one.status !== 'confirmed');
      const sent: DueReminder[] = [];
      const work: { scope: TenantScope; reminders: DueBookingReminder[] }[] = [];
      for (const group of byScope(due.filter((one) => one.status === 'confirmed' && one.startsAt.getTime() > now.getTime()))) {
        const scope = jobTenantScope(group[0].organizationId, group[0].livemode);
        const found = new Map(
          (await this.bookings.findMany(scope, [...new Set(group.map((one) => one.bookingId))])).map((b) => [b.booking.id, b]),
        );
        const summaries = await this.effects.summariesOf(
          scope,
          [...found.values()].map((b) => b.booking),
        );
        const reminders: DueBookingReminder[] = [];
        for (const one of group) {
          const booking = found.get(one.bookingId);
          const summary = booking && summaries.get(booking.booking.eventTypeId);
          // The event type's current list decides (a removed reminder whose row a change has not reached yet goes unsent).
          const reminder = summary?.reminders.find((candidate) => candidate.minutesBefore === one.minutesBefore);
          if (!booking || !summary || !reminder) {
            dropped.push(one);
            continue;
          }
          reminders.push({ booking: booking.booking, hostUserIds: booking.hostUserIds, summary, reminder });
          sent.push(one);
        }
        work.push({ scope, reminders });
      }
      await this.tx.batched(async () => {
        for (const { scope, reminders } of work) if (reminders.length > 0) await this.effects.remind(scope, reminders);
        await this.queue.markSent(sent, now);
        await this.queue.markMissed(missed);
        await this.queue.remove(dropped);
      });
      return { sent: sent.length, missed: missed.length, dropped: dropped.length };
    });
  }
}

/** The claimed rows by organization and mode, in claim order. */
function byScope(due: readonly DueReminder[]): DueReminder[][] {
  const groups = new Map<string, DueReminder[]>();
  for (const one of due) {
    const key = `${one.organizationId}:${one.livemode}`;
    const group = groups.get(key);
    if (group) group.push(one);
    else groups.set(key, [one]);
  }
  return [...groups.values()];
}
