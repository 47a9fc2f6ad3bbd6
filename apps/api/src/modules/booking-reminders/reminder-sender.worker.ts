import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig, Clock, jobTenantScope, type TenantScope } from '@app/common';
import { TransactionHost } from '@app/database';
import { JobLoop, nextRetrySeconds, type TickResult } from '../../jobs/index.js';
import { BookingEffectsService, type DueBookingReminder } from '../booking-effects/index.js';
import { BOOKING_REMINDERS_CHANNEL } from './booking-reminders.repository.js';
import { BookingRows } from '../booking-core/index.js';
import { type DueReminder, ReminderQueueRepository } from './reminder-queue.repository.js';

/** Reminders per round: one claim, one read of each kind for every organization in it, one transaction of writes. */
export const REMINDER_BATCH = 100;

/** A round's lease: far longer than a round takes; what a killed sender had claimed is due again when it ends. */
export const REMINDER_LEASE_SECONDS = 15;

/** The pause when what is due is leased by other senders' rounds (they finish within a round's time). */
const BUSY_ELSEWHERE_MS = 200;

/** What one round did with what it claimed. */
export interface ReminderRound {
  sent: number;
  missed: number;
  dropped: number;
  /** Reminders whose writes failed: retried alone on REMINDER_RETRY_SCHEDULE, then parked as missed with the error. */
  failed: number;
}

/** A claim of the round went stale (its lease ran out and another sender took the row): the round writes nothing. */
class StaleClaim extends Error {}

/**
 * Sends due reminders (api-rules.md § Reminders) on the jobs framework's LeaseQueue: each round leases up to
 * REMINDER_BATCH due rows (instances and workers share them) and, in one transaction, writes their mails and
 * `booking.reminder` events to the outboxes and marks them sent, fenced by the leases. When that transaction fails,
 * each reminder goes again in a transaction of its own, so one bad row fails alone: it is retried on
 * REMINDER_RETRY_SCHEDULE and then parked as missed with its error, while every other row goes out. A process killed
 * mid-round rolls its transaction back and its rows are due again when the lease ends: nothing is lost and nothing
 * goes twice. Time is the injectable Clock: a reminder is due when `due_at <= now`, missed when the meeting started
 * before it was claimed.
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

  /** Nothing due: one read of the next due time, no transaction (the idle cost, docs/contributing/performance.md). */
  private async tick(): Promise<TickResult> {
    const wait = await this.queue.msUntilNextDue(this.clock.now());
    if (wait === null || wait > 0) return wait ?? undefined;
    const round = await this.sendDue();
    if (round.sent + round.missed + round.failed > 0) this.logger.log({ msg: 'Reminders sent', ...round });
    // Due, but every due row is another sender's round: look again shortly rather than at once.
    return round.sent + round.missed + round.dropped + round.failed > 0 ? 'again' : BUSY_ELSEWHERE_MS;
  }

  /** One round: one claim, then one transaction, or one per reminder when that one fails. */
  async sendDue(): Promise<ReminderRound> {
    const now = this.clock.now();
    const due = await this.queue.claimDue(now, REMINDER_BATCH, REMINDER_LEASE_SECONDS);
    const round: ReminderRound = { sent: 0, missed: 0, dropped: 0, failed: 0 };
    if (due.length === 0) return round;
    try {
      return { ...(await this.write(due, now)), failed: 0 };
    } catch (error) {
      if (due.length === 1) return { ...round, failed: await this.failed(due[0], error) };
    }
    // Some reminder's statement failed the round: each goes again alone, so only that one waits for its retry.
    for (const one of due) {
      try {
        const written = await this.write([one], now);
        round.sent += written.sent;
        round.missed += written.missed;
        round.dropped += written.dropped;
      } catch (error) {
        round.failed += await this.failed(one, error);
      }
    }
    return round;
  }

  /** Its writes failed: retried after the schedule's next delay, or parked with the error when the retries are spent. */
  private async failed(one: DueReminder, error: unknown): Promise<number> {
    if (error instanceof StaleClaim) return 0;
    if (await this.queue.setBack(one, error)) {
      this.logger.warn({ msg: 'Reminder met a database outage; not counted, goes again', reminderId: one.id, error: errorCode(error) });
      return 0;
    }
    const message = errorMessage(error);
    const delay = nextRetrySeconds(this.config.reminderRetrySchedule, one.attempts);
    const written = delay === null ? await this.queue.park(one, message) : await this.queue.retry(one, delay, message);
    this.logger.warn({
      msg: delay === null ? 'Reminder failed; parked' : 'Reminder failed; will retry',
      reminderId: one.id,
      error: errorCode(error),
    });
    return written ? 1 : 0;
  }

  /** The reminders' events, mails and outcomes, in one transaction; StaleClaim (and nothing written) when a lease went stale. */
  private async write(due: readonly DueReminder[], now: Date): Promise<Omit<ReminderRound, 'failed'>> {
    return this.tx.transaction(async () => {
      const missed = due.filter((one) => one.status === 'confirmed' && one.startsAt.getTime() <= now.getTime());
      const dropped = due.filter((one) => one.status !== 'confirmed');
      const sent: DueReminder[] = [];
      const work: { scope: TenantScope; reminders: DueBookingReminder[] }[] = [];
      // The round's lookups: one statement each for every organization in it (bookings, their hosts, event types).
      const groups = byScope(due.filter((one) => one.status === 'confirmed' && one.startsAt.getTime() > now.getTime())).map((group) => ({
        scope: jobTenantScope(group[0].organizationId, group[0].livemode),
        group,
      }));
      const found = new Map(
        (await this.bookings.findManyAcross(groups.map(({ scope, group }) => ({ scope, ids: group.map((one) => one.bookingId) })))).map(
          (b) => [b.booking.id, b],
        ),
      );
      const summaries = await this.effects.summariesAcross(
        groups.flatMap(({ scope, group }) =>
          group.flatMap((one) => (found.has(one.bookingId) ? [{ scope, booking: found.get(one.bookingId)!.booking }] : [])),
        ),
      );
      for (const { scope, group } of groups) {
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
      const outcomes = [
        ...sent.map((claim) => ({ claim, outcome: 'sent' as const })),
        ...missed.map((claim) => ({ claim, outcome: 'missed' as const })),
        ...dropped.map((claim) => ({ claim, outcome: 'dropped' as const })),
      ];
      // First the fenced outcomes: a stale claim rolls the round back before anything is written for it.
      if ((await this.queue.settle(outcomes, now)) < outcomes.length) throw new StaleClaim('a reminder’s lease went stale');
      await this.tx.batched(() => this.effects.remindAll(work));
      return { sent: sent.length, missed: missed.length, dropped: dropped.length };
    });
  }
}

/** What `last_error` keeps: PostgreSQL's message names the constraint, never the row's values (those are in its detail). */
function errorMessage(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).slice(0, 500);
}

function errorCode(error: unknown): string {
  if (typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string') return error.code;
  return error instanceof Error ? error.name : 'unknown';
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
