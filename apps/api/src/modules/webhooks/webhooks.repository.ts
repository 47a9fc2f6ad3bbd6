import { Injectable } from '@nestjs/common';
import { PageRequest, pageOffset, type TenantScope } from '@app/common';
import { MoreThanOrEqual } from 'typeorm';
import { type DeliveryStatus, WebhookDelivery } from './entities/webhook-delivery.entity.js';
import { Webhook } from './entities/webhook.entity.js';
import { TransactionHost } from '@app/database';

/** Woken by anything that makes a delivery due outside the dispatcher: tests, retries, re-activation. */
export const WEBHOOK_DELIVERIES_CHANNEL = 'webhook_deliveries';

export type WebhookChanges = Partial<Pick<Webhook, 'url' | 'events' | 'description' | 'active' | 'updatedAt'>>;
export type NewDeliveryRow = Pick<WebhookDelivery, 'id' | 'webhookId' | 'eventId' | 'eventType' | 'body' | 'maxAttempts'>;

/**
 * Webhooks and their deliveries as the API sees them. Every method takes the tenant scope (organization
 * and mode), so another tenant's or another mode's rows are simply not found.
 */
@Injectable()
export class WebhooksRepository {
  constructor(private readonly tx: TransactionHost) {}

  async insert(scope: TenantScope, webhook: Webhook): Promise<void> {
    await this.tx.transactional.insert(Webhook, { ...webhook, organizationId: scope.organizationId, livemode: scope.livemode });
  }

  async find(scope: TenantScope, id: string): Promise<Webhook | null> {
    return this.tx.reads.findOne(Webhook, { where: { id, organizationId: scope.organizationId, livemode: scope.livemode } });
  }

  async list(scope: TenantScope, page: PageRequest): Promise<[Webhook[], number]> {
    return this.tx.reads.findAndCount(Webhook, {
      where: { organizationId: scope.organizationId, livemode: scope.livemode },
      order: { createdAt: 'DESC', id: 'ASC' },
      skip: pageOffset(page),
      take: page.limit,
    });
  }

  /**
   * How many deliveries of each of `webhookIds` failed for good with their last attempt at or after `since`: one
   * statement for a page of webhooks. A webhook without any is absent from the map.
   */
  async countFailedSince(scope: TenantScope, webhookIds: string[], since: Date): Promise<Map<string, number>> {
    if (webhookIds.length === 0) return new Map();
    const rows: { webhook_id: string; failed: number }[] = await this.tx.reads.query(
      `SELECT webhook_id, count(*)::int AS failed
         FROM webhook_deliveries
        WHERE organization_id = $1 AND webhook_id = ANY($2) AND status = 'failed' AND last_attempt_at >= $3
        GROUP BY webhook_id`,
      [scope.organizationId, webhookIds, since],
    );
    return new Map(rows.map((row) => [row.webhook_id, row.failed]));
  }

  /** The updated webhook, or null when there is none of the organization in that mode. */
  async update(scope: TenantScope, id: string, changes: WebhookChanges): Promise<Webhook | null> {
    const manager = this.tx.transactional;
    const result = await manager.update(Webhook, { id, organizationId: scope.organizationId, livemode: scope.livemode }, changes);
    if ((result.affected ?? 0) === 0) return null;
    // Re-activation makes the deliveries that waited due again, on whichever instance listens (on commit).
    if (changes.active) await manager.query(`NOTIFY ${WEBHOOK_DELIVERIES_CHANNEL}`);
    return manager.findOne(Webhook, { where: { id, organizationId: scope.organizationId, livemode: scope.livemode } });
  }

  /** Deliveries and their attempt log go with it (ON DELETE CASCADE). */
  async delete(scope: TenantScope, id: string): Promise<boolean> {
    const result = await this.tx.transactional.delete(Webhook, { id, organizationId: scope.organizationId, livemode: scope.livemode });
    return (result.affected ?? 0) > 0;
  }

  /**
   * Erasure: the scope's deliveries of these events, or whose body is one of these bookings (their event may already
   * be gone by retention), with their attempts (cascade), sent or not. Returns how many went.
   */
  async deleteDeliveriesAbout(
    scope: TenantScope,
    eventIds: readonly string[],
    subjects: { bookingIds: readonly string[]; routingResponseIds: readonly string[] },
  ): Promise<number> {
    const [, count]: [unknown[], number] = await this.tx.transactional.query(
      `DELETE FROM webhook_deliveries d USING webhooks w
        WHERE d.webhook_id = w.id AND w.organization_id = $1 AND w.livemode = $2
          AND (d.event_id = ANY($3::text[])
               OR d.body::jsonb #>> '{data,booking,id}' = ANY($4::text[])
               OR d.body::jsonb #>> '{data,previousBooking,id}' = ANY($4::text[])
               OR (d.event_type = 'routing_form.submitted' AND d.body::jsonb #>> '{data,response,id}' = ANY($5::text[])))`,
      [scope.organizationId, scope.livemode, [...eventIds], [...subjects.bookingIds], [...subjects.routingResponseIds]],
    );
    return count ?? 0;
  }

  async insertDelivery(scope: TenantScope, row: NewDeliveryRow): Promise<WebhookDelivery> {
    const manager = this.tx.transactional;
    await manager.insert(WebhookDelivery, { ...row, organizationId: scope.organizationId });
    await manager.query(`NOTIFY ${WEBHOOK_DELIVERIES_CHANNEL}`);
    return manager.findOneOrFail(WebhookDelivery, { where: { id: row.id, organizationId: scope.organizationId } });
  }

  async listDeliveries(
    scope: TenantScope,
    webhookId: string,
    page: PageRequest,
    filters: { status?: DeliveryStatus; since?: Date } = {},
  ): Promise<[WebhookDelivery[], number]> {
    return this.tx.reads.findAndCount(WebhookDelivery, {
      where: {
        organizationId: scope.organizationId,
        webhookId,
        ...(filters.status ? { status: filters.status } : {}),
        ...(filters.since ? { lastAttemptAt: MoreThanOrEqual(filters.since) } : {}),
      },
      order: { createdAt: 'DESC', id: 'DESC' },
      skip: pageOffset(page),
      take: page.limit,
    });
  }

  /**
   * One more attempt, now, whatever the status. A pending delivery gains an attempt; a finished one gets
   * exactly one. The lease is left alone: an attempt in flight is not doubled, the next one is simply due.
   */
  async retryDelivery(scope: TenantScope, webhookId: string, deliveryId: string): Promise<WebhookDelivery | null> {
    const manager = this.tx.transactional;
    const result = await manager
      .createQueryBuilder()
      .update(WebhookDelivery)
      .set({
        status: 'pending',
        nextAttemptAt: () => 'now()',
        maxAttempts: () => `CASE WHEN status = 'pending' THEN max_attempts + 1 ELSE attempts + 1 END`,
      })
      .where('id = :deliveryId AND webhook_id = :webhookId AND organization_id = :organizationId', {
        deliveryId,
        webhookId,
        organizationId: scope.organizationId,
      })
      .execute();
    if (!result.affected) return null;
    await manager.query(`NOTIFY ${WEBHOOK_DELIVERIES_CHANNEL}`);
    return manager.findOneOrFail(WebhookDelivery, { where: { id: deliveryId, organizationId: scope.organizationId } });
  }
}
