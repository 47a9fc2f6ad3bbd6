import { Injectable, Logger } from '@nestjs/common';
import type { TenantScope } from '@app/common';
import { TransactionHost } from '@app/database';
import { type Claim, LeaseQueue, leaseOf, MonthlyPartitions } from '../../jobs/index.js';
import { type ClaimedEvent, DOMAIN_EVENTS_CHANNEL, type DomainEventInput } from './domain-event.js';

interface ClaimedRow {
  id: string;
  due_at: Date;
  attempts: number;
  organization_id: string;
  livemode: boolean;
  type: string;
  data: Record<string, unknown>;
  created_at: Date;
  trace_parent: string | null;
}

/** Events not yet fanned out nor parked. */
const WAITING = 'c.dispatched_at IS NULL AND c.failed_at IS NULL';

/**
 * The outbox's table (`domain_events`): written in the recording feature's transaction, read by the dispatcher on the
 * one LeaseQueue (docs/contributing/architecture.md § Background work).
 */
@Injectable()
export class DomainEventsRepository {
  private readonly queue: LeaseQueue<ClaimedRow>;
  /**
   * Its months (docs/operating/partitions.md): retention drops a month whole once all of it is past, unless it still
   * holds an event waiting to be fanned out (such a month stays, and its finished events go one by one as before).
   */
  readonly partitions: MonthlyPartitions;

  constructor(private readonly tx: TransactionHost) {
    this.partitions = new MonthlyPartitions(tx, new Logger('DomainEventRetention'), {
      table: 'domain_events',
      column: 'created_at',
      stillNeeded: async (partition) => {
        const rows: unknown[] = await this.tx.reads.query(`SELECT 1 FROM "${partition.name}" c WHERE ${WAITING} LIMIT 1`);
        return rows.length > 0;
      },
    });
    this.queue = new LeaseQueue(tx, {
      table: 'domain_events',
      waiting: WAITING,
      dueColumn: 'due_at',
      order: 'c.due_at, c.created_at, c.id',
      countsAttempts: true,
      errorColumn: 'last_error',
      returning: 'q.id, q.due_at, q.attempts, q.organization_id, q.livemode, q.type, q.data, q.created_at, q.trace_parent',
    });
  }

  /** One event, written with the caller's other writes; its notification is delivered on commit. */
  async insert(scope: TenantScope, id: string, input: DomainEventInput, at: Date, traceParent: string | null): Promise<void> {
    await this.tx.write(
      `WITH inserted AS (
         INSERT INTO domain_events (id, organization_id, livemode, type, data, created_at, trace_parent)
         VALUES ($1, $2, $3, $4, $5, $6, $8) RETURNING id)
       SELECT pg_notify($7, id) FROM inserted`,
      [id, scope.organizationId, scope.livemode, input.type, JSON.stringify(input.data), at, DOMAIN_EVENTS_CHANNEL, traceParent],
    );
  }

  /** Several events in one statement (a recurring series' occurrences). */
  async insertMany(
    scope: TenantScope,
    ids: readonly string[],
    inputs: readonly DomainEventInput[],
    at: Date,
    traceParent: string | null,
  ): Promise<void> {
    await this.tx.write(
      `WITH inserted AS (
         INSERT INTO domain_events (id, organization_id, livemode, type, data, created_at, trace_parent)
         SELECT e.id, $1, $2, e.type, e.data::jsonb, $3, $8 FROM unnest($4::text[], $5::text[], $6::text[]) WITH ORDINALITY AS e(id, type, data, n)
          ORDER BY e.n
         RETURNING id)
       SELECT pg_notify($7, id) FROM inserted`,
      [
        scope.organizationId,
        scope.livemode,
        at,
        [...ids],
        inputs.map((input) => input.type),
        inputs.map((input) => JSON.stringify(input.data)),
        DOMAIN_EVENTS_CHANNEL,
        traceParent,
      ],
    );
  }

  /** Retention: events already fanned out to webhooks (or parked), older than `cutoff` (deliveries carry their own body). */
  async deleteDispatchedBefore(cutoff: Date): Promise<number> {
    const [, count]: [unknown[], number] = await this.tx
      .outside('retention runs as a job of its own, in autocommit')
      .query(`DELETE FROM domain_events WHERE (dispatched_at IS NOT NULL OR failed_at IS NOT NULL) AND created_at < $1`, [cutoff]);
    return count ?? 0;
  }

  /**
   * The reading side of the outbox, for the webhooks dispatcher: leases up to `limit` due events for `leaseSeconds`
   * (LeaseQueue, one statement outside any transaction), the oldest first, each with its claim's lease and attempts.
   */
  async claimUndispatched(limit: number, leaseSeconds: number): Promise<ClaimedEvent[]> {
    const rows = await this.queue.claim(limit, leaseSeconds);
    // RETURNING keeps no order: the claim's order (oldest first) is restored here, for the deliveries' order.
    rows.sort(
      (a, b) =>
        a.due_at.getTime() - b.due_at.getTime() ||
        a.created_at.getTime() - b.created_at.getTime() ||
        (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
    );
    return rows.map((r) => ({
      id: r.id,
      lease: r.lease,
      attempts: r.attempts,
      organizationId: r.organization_id,
      livemode: r.livemode,
      type: r.type,
      data: r.data,
      createdAt: r.created_at,
      traceParent: r.trace_parent,
    }));
  }

  /**
   * In the fan-out's transaction, one statement: the claimed events are dispatched, each only while its claim's lease
   * is still the row's. How many it marked (fewer than given: a claim went stale).
   */
  async markDispatched(claims: readonly Claim[]): Promise<number> {
    if (claims.length === 0) return 0;
    const [, count]: [unknown[], number] = await this.tx.transactional.query(
      `UPDATE domain_events c SET dispatched_at = now(), locked_until = NULL, last_error = NULL
         FROM unnest($1::text[], $2::text[]) AS k(id, lease)
        WHERE c.id = k.id AND ${leaseOf('c')} = k.lease AND ${WAITING}`,
      [claims.map((claim) => claim.id), claims.map((claim) => claim.lease)],
    );
    return count ?? 0;
  }

  /** Its run met an outage: the attempt is handed back and it goes again shortly (LeaseQueue.setBack); false otherwise. */
  setBack(claim: Claim, error: unknown): Promise<boolean> {
    return this.queue.setBack(claim, error);
  }

  /** Its fan-out failed: due again in `delaySeconds`, with the error. False when the claim is stale. */
  retry(claim: Claim, delaySeconds: number, error: string): Promise<boolean> {
    return this.queue.retry(claim, delaySeconds, error);
  }

  /** Its retries are spent: parked (failed_at) with its error, never fanned out. False when the claim is stale. */
  async park(claim: Claim, error: string): Promise<boolean> {
    const [, count]: [unknown[], number] = await this.tx
      .outside('a failed event’s outcome is written after its fan-out rolled back')
      .query(
        `UPDATE domain_events c SET locked_until = NULL, failed_at = now(), last_error = $3 WHERE id = $1 AND ${leaseOf('c')} = $2 AND ${WAITING}`,
        [claim.id, claim.lease, error],
      );
    return count > 0;
  }

  /** Milliseconds to the next event a claim may take (0 when one is due), or null when none waits. */
  msUntilNextDue(): Promise<number | null> {
    return this.queue.msUntilNextDue();
  }

  /**
   * Erasure: the scope's events whose payload is one of these bookings (`data.booking`, or `data.previousBooking` of a
   * reschedule), dispatched or not, in the caller's transaction. A dispatcher fanning one out right now holds its row:
   * this waits for it, so the deliveries it wrote are committed before the caller deletes them. Returns their ids.
   */
  async deleteAboutBookings(scope: TenantScope, bookingIds: readonly string[]): Promise<string[]> {
    const [rows]: [{ id: string }[], number] = await this.tx.transactional.query(
      `DELETE FROM domain_events
        WHERE organization_id = $1 AND livemode = $2
          AND (data #>> '{booking,id}' = ANY($3::text[]) OR data #>> '{previousBooking,id}' = ANY($3::text[]))
        RETURNING id`,
      [scope.organizationId, scope.livemode, [...bookingIds]],
    );
    return rows.map((row) => row.id);
  }

  /** Erasure: the `routing_form.submitted` events of these responses; returns their ids. */
  async deleteAboutRoutingResponses(scope: TenantScope, responseIds: readonly string[]): Promise<string[]> {
    const [rows]: [{ id: string }[], number] = await this.tx.transactional.query(
      `DELETE FROM domain_events
        WHERE organization_id = $1 AND livemode = $2 AND type = 'routing_form.submitted'
          AND data #>> '{response,id}' = ANY($3::text[])
        RETURNING id`,
      [scope.organizationId, scope.livemode, [...responseIds]],
    );
    return rows.map((row) => row.id);
  }

  /** Everything a deleted organization recorded (no foreign key ties these rows to it). */
  async deleteOfOrganization(scope: TenantScope): Promise<void> {
    await this.tx.transactional.query(`DELETE FROM domain_events WHERE organization_id = $1`, [scope.organizationId]);
  }
}
