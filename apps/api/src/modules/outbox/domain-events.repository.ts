import { Injectable } from '@nestjs/common';
import type { TenantScope } from '@app/common';
import { TransactionHost } from '@app/database';
import { DOMAIN_EVENTS_CHANNEL, type DomainEventInput, type PendingEvent } from './domain-event.js';

/** The outbox's table (`domain_events`): written in the recording feature's transaction, read by the dispatcher. */
@Injectable()
export class DomainEventsRepository {
  constructor(private readonly tx: TransactionHost) {}

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

  /** Retention: events already fanned out to webhooks, older than `cutoff` (deliveries carry their own body). */
  async deleteDispatchedBefore(cutoff: Date): Promise<number> {
    const [, count]: [unknown[], number] = await this.tx
      .outside('retention runs as a job of its own, in autocommit')
      .query(`DELETE FROM domain_events WHERE dispatched_at IS NOT NULL AND created_at < $1`, [cutoff]);
    return count ?? 0;
  }

  /**
   * The reading side of the outbox, for the webhooks dispatcher: locks the oldest undispatched events
   * until the caller's transaction ends (other dispatchers skip them), which marks them dispatched in it.
   */
  async claimUndispatched(limit: number): Promise<PendingEvent[]> {
    const rows: {
      id: string;
      organization_id: string;
      livemode: boolean;
      type: string;
      data: Record<string, unknown>;
      created_at: Date;
      trace_parent: string | null;
    }[] = await this.tx.transactional.query(
      `SELECT id, organization_id, livemode, type, data, created_at, trace_parent
           FROM domain_events
          WHERE dispatched_at IS NULL
          ORDER BY created_at, id
          LIMIT $1
          FOR UPDATE SKIP LOCKED`,
      [limit],
    );
    return rows.map((r) => ({
      id: r.id,
      organizationId: r.organization_id,
      livemode: r.livemode,
      type: r.type,
      data: r.data,
      createdAt: r.created_at,
      traceParent: r.trace_parent,
    }));
  }

  async markDispatched(eventIds: string[]): Promise<void> {
    if (eventIds.length === 0) return;
    await this.tx.transactional.query(`UPDATE domain_events SET dispatched_at = now() WHERE id = ANY($1::text[])`, [eventIds]);
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

  /** Everything a deleted organization recorded (no foreign key ties these rows to it). */
  async deleteOfOrganization(scope: TenantScope): Promise<void> {
    await this.tx.transactional.query(`DELETE FROM domain_events WHERE organization_id = $1`, [scope.organizationId]);
  }
}
