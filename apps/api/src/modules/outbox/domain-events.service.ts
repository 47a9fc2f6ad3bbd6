import { Injectable } from '@nestjs/common';
import { AppConfig, Clock, daysBefore, newId, type TenantScope } from '@app/common';
import { PeriodicJobs, RETENTION_INTERVAL_MS } from '../../jobs/index.js';
import { TransactionHost } from '@app/database';

export const DOMAIN_EVENT_TYPES = [
  'booking.created',
  'booking.cancelled',
  'booking.rescheduled',
  'booking.confirmed',
  'booking.declined',
  'event_type.created',
  'event_type.updated',
  'event_type.deleted',
  'member.invited',
  'member.joined',
  'member.updated',
  'member.removed',
  'calendar.sync_failed',
] as const;
export type DomainEventType = (typeof DOMAIN_EVENT_TYPES)[number];

export const DOMAIN_EVENTS_CHANNEL = 'domain_events';

/** A committed event as the webhooks dispatcher fans it out. */
export interface PendingEvent {
  id: string;
  organizationId: string;
  livemode: boolean;
  type: string;
  data: Record<string, unknown>;
  createdAt: Date;
}

export interface DomainEventInput {
  type: DomainEventType;
  /** The payload's `data`, e.g. `{ booking }` rendered as the API shows it. */
  data: Record<string, unknown>;
}

/**
 * The one shared writer features use to record what happened, inside their own transaction.
 * NOTIFY is delivered on commit only, so listeners never see an event that was rolled back.
 */
@Injectable()
export class DomainEvents {
  constructor(
    private readonly tx: TransactionHost,
    private readonly clock: Clock,
    config: AppConfig,
    jobs: PeriodicJobs,
  ) {
    jobs.register('domain-event-retention', RETENTION_INTERVAL_MS, () =>
      this.deleteDispatchedBefore(daysBefore(this.clock.now(), config.retentionDays)),
    );
  }

  async record(scope: TenantScope, input: DomainEventInput): Promise<string> {
    const id = newId('whevt');
    await this.tx.write(
      `WITH inserted AS (
         INSERT INTO domain_events (id, organization_id, livemode, type, data, created_at) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id)
       SELECT pg_notify($7, id) FROM inserted`,
      [id, scope.organizationId, scope.livemode, input.type, JSON.stringify(input.data), this.clock.now(), DOMAIN_EVENTS_CHANNEL],
    );
    return id;
  }

  /** Several events in one statement (a recurring series' occurrences), with one notification. */
  async recordMany(scope: TenantScope, inputs: readonly DomainEventInput[]): Promise<string[]> {
    const ids = inputs.map(() => newId('whevt'));
    if (ids.length === 0) return ids;
    await this.tx.write(
      `WITH inserted AS (
         INSERT INTO domain_events (id, organization_id, livemode, type, data, created_at)
         SELECT e.id, $1, $2, e.type, e.data::jsonb, $3 FROM unnest($4::text[], $5::text[], $6::text[]) WITH ORDINALITY AS e(id, type, data, n)
          ORDER BY e.n
         RETURNING id)
       SELECT pg_notify($7, id) FROM inserted`,
      [
        scope.organizationId,
        scope.livemode,
        this.clock.now(),
        ids,
        inputs.map((input) => input.type),
        inputs.map((input) => JSON.stringify(input.data)),
        DOMAIN_EVENTS_CHANNEL,
      ],
    );
    return ids;
  }

  /** Retention: events already fanned out to webhooks, older than `cutoff` (deliveries carry their own body). */
  async deleteDispatchedBefore(cutoff: Date): Promise<number> {
    const [, count]: [unknown[], number] = await this.tx.manager.query(
      `DELETE FROM domain_events WHERE dispatched_at IS NOT NULL AND created_at < $1`,
      [cutoff],
    );
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
    }[] = await this.tx.transactional.query(
      `SELECT id, organization_id, livemode, type, data, created_at
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
    }));
  }

  async markDispatched(eventIds: string[]): Promise<void> {
    if (eventIds.length === 0) return;
    await this.tx.transactional.query(`UPDATE domain_events SET dispatched_at = now() WHERE id = ANY($1::text[])`, [eventIds]);
  }

  /** Everything a deleted organization recorded (no foreign key ties these rows to it). */
  async deleteOfOrganization(scope: TenantScope): Promise<void> {
    await this.tx.transactional.query(`DELETE FROM domain_events WHERE organization_id = $1`, [scope.organizationId]);
  }
}
