import { Injectable } from '@nestjs/common';
import { AppConfig, Clock, daysBefore, newId, type TenantScope } from '@app/common';
import { type Claim, PeriodicJobs, RETENTION_INTERVAL_MS } from '../../jobs/index.js';
import { activeTraceParent } from '../../tracing/spans.js';
import { DomainEventsRepository } from './domain-events.repository.js';
import type { ClaimedEvent, DomainEventInput } from './domain-event.js';

export * from './domain-event.js';

/** What an erasure's events were about: the erased bookings, and the routing responses whose answers it emptied. */
export interface ErasedSubjects {
  bookingIds: readonly string[];
  routingResponseIds: readonly string[];
}

/**
 * Told, in the erasing transaction, which events about an erased attendee were deleted (and what they were about):
 * whoever copied them elsewhere (the webhooks' deliveries) deletes its copies and says how many.
 */
export type ErasedEventsListener = (scope: TenantScope, eventIds: readonly string[], subjects: ErasedSubjects) => Promise<number>;

/**
 * The one shared writer features use to record what happened, inside their own transaction.
 * NOTIFY is delivered on commit only, so listeners never see an event that was rolled back.
 */
@Injectable()
export class DomainEvents {
  private readonly erasedListeners: ErasedEventsListener[] = [];

  constructor(
    private readonly repository: DomainEventsRepository,
    private readonly clock: Clock,
    config: AppConfig,
    jobs: PeriodicJobs,
  ) {
    jobs.register('domain-event-retention', RETENTION_INTERVAL_MS, () => this.retain(config.retentionDays));
  }

  /** Called by the modules that copy events (webhooks), so the outbox never imports them. */
  onEventsErased(listener: ErasedEventsListener): void {
    this.erasedListeners.push(listener);
  }

  /**
   * Erasure (contract § 18): the events whose payload is one of these bookings, dispatched or not, and every copy the
   * listeners keep, in the caller's transaction. Returns how many copies (webhook deliveries) went.
   */
  async eraseAboutBookings(scope: TenantScope, bookingIds: readonly string[]): Promise<number> {
    if (bookingIds.length === 0) return 0;
    const eventIds = await this.repository.deleteAboutBookings(scope, bookingIds);
    return this.eraseCopies(scope, eventIds, { bookingIds, routingResponseIds: [] });
  }

  /**
   * Erasure (contract § 18): the `routing_form.submitted` events of these responses (their payloads carry the answers),
   * dispatched or not, and every copy the listeners keep, in the caller's transaction. Returns how many copies went.
   */
  async eraseAboutRoutingResponses(scope: TenantScope, responseIds: readonly string[]): Promise<number> {
    if (responseIds.length === 0) return 0;
    const eventIds = await this.repository.deleteAboutRoutingResponses(scope, responseIds);
    return this.eraseCopies(scope, eventIds, { bookingIds: [], routingResponseIds: responseIds });
  }

  private async eraseCopies(scope: TenantScope, eventIds: readonly string[], subjects: ErasedSubjects): Promise<number> {
    let copies = 0;
    for (const listener of this.erasedListeners) copies += await listener(scope, eventIds, subjects);
    return copies;
  }

  /** The event keeps the recording request's trace context, so the webhook attempts it causes join that trace. */
  async record(scope: TenantScope, input: DomainEventInput): Promise<string> {
    const id = newId('whevt');
    await this.repository.insert(scope, id, input, this.clock.now(), activeTraceParent());
    return id;
  }

  /** Several events in one statement (a recurring series' occurrences), each with its notification. */
  async recordMany(scope: TenantScope, inputs: readonly DomainEventInput[]): Promise<string[]> {
    const ids = inputs.map(() => newId('whevt'));
    if (ids.length > 0) await this.repository.insertMany(scope, ids, inputs, this.clock.now(), activeTraceParent());
    return ids;
  }

  /**
   * One round of retention (docs/operating/partitions.md): the coming months' partitions made, the months wholly past
   * `days` dropped (unless one still holds an event waiting to be fanned out), then the finished events older than the
   * cut-off that remain deleted. Returns how many events went.
   */
  async retain(days: number): Promise<number> {
    const now = this.clock.now();
    const cutoff = daysBefore(now, days);
    await this.repository.partitions.prepare(now);
    const dropped = await this.repository.partitions.dropExpired(cutoff);
    return dropped + (await this.deleteDispatchedBefore(cutoff));
  }

  /** Retention: events already fanned out to webhooks, older than `cutoff` (deliveries carry their own body). */
  deleteDispatchedBefore(cutoff: Date): Promise<number> {
    return this.repository.deleteDispatchedBefore(cutoff);
  }

  /**
   * The reading side of the outbox, for the webhooks dispatcher (LeaseQueue): leases up to `limit` due events for
   * `leaseSeconds`, the oldest first; the dispatcher marks them dispatched in the transaction of their deliveries.
   */
  claimUndispatched(limit: number, leaseSeconds: number): Promise<ClaimedEvent[]> {
    return this.repository.claimUndispatched(limit, leaseSeconds);
  }

  /** In the fan-out's transaction, fenced by each claim's lease; how many it marked (fewer: a claim went stale). */
  markDispatched(claims: readonly Claim[]): Promise<number> {
    return this.repository.markDispatched(claims);
  }

  /** A fan-out that met a database outage: not counted, goes again shortly (LeaseQueue.setBack); false otherwise. */
  setBack(claim: Claim, error: unknown): Promise<boolean> {
    return this.repository.setBack(claim, error);
  }

  /** A failed fan-out: due again in `delaySeconds`, with the error. False when the claim is stale. */
  retry(claim: Claim, delaySeconds: number, error: string): Promise<boolean> {
    return this.repository.retry(claim, delaySeconds, error);
  }

  /** Retries spent: parked with its error. False when the claim is stale. */
  park(claim: Claim, error: string): Promise<boolean> {
    return this.repository.park(claim, error);
  }

  /** The dispatcher's next wake-up: ms to the next event a claim may take, null when none waits. */
  msUntilNextDue(): Promise<number | null> {
    return this.repository.msUntilNextDue();
  }

  /** Everything a deleted organization recorded (no foreign key ties these rows to it). */
  deleteOfOrganization(scope: TenantScope): Promise<void> {
    return this.repository.deleteOfOrganization(scope);
  }
}
