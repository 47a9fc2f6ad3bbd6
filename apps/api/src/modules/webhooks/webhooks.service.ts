import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@app/database';
import { AppConfig, AppError, Clock, looksLikeId, newId, PageRequest, pageMeta, type Principal, tenantScope } from '@app/common';
import {
  CreatedWebhookResponse,
  CreateWebhookDto,
  UpdateWebhookDto,
  WebhookDeliveryListResponse,
  ListDeliveriesQueryDto,
  WebhookDeliveryResponse,
  WebhookDeliveryView,
  WebhookListResponse,
  WebhookResponse,
  WebhookView,
} from './dto/webhook.dto.js';
import type { WebhookDelivery } from './entities/webhook-delivery.entity.js';
import { Webhook } from './entities/webhook.entity.js';
import { newSigningSecret } from './secret-box.js';
import { checkWebhookUrl, UnsafeUrlError } from '@app/common';
import { serializePayload, WEBHOOK_TEST_EVENT } from './webhook-events.js';
import { WebhookSecrets } from './webhook-secrets.service.js';
import { DomainEvents } from '../outbox/index.js';
import { WebhookChanges, WebhooksRepository } from './webhooks.repository.js';
import { AuditTrail, changesBetween } from '../audit/index.js';

/** What `failedDeliveriesLast24h` looks back over. */
const FAILURE_WINDOW_MS = 24 * 60 * 60 * 1000;

/** Bounds the create/PATCH request when a resolver stalls. */
const URL_CHECK_TIMEOUT_MS = 5_000;

export function webhookView(webhook: Webhook): WebhookView {
  return {
    id: webhook.id,
    url: webhook.url,
    events: webhook.events,
    description: webhook.description,
    active: webhook.active,
    livemode: webhook.livemode,
    createdAt: webhook.createdAt.toISOString(),
  };
}

export function deliveryView(delivery: WebhookDelivery): WebhookDeliveryView {
  return {
    id: delivery.id,
    eventId: delivery.eventId,
    eventType: delivery.eventType,
    status: delivery.status,
    attempts: delivery.attempts,
    lastAttemptAt: delivery.lastAttemptAt?.toISOString() ?? null,
    nextAttemptAt: delivery.status === 'pending' ? (delivery.nextAttemptAt?.toISOString() ?? null) : null,
    responseStatus: delivery.responseStatus,
    lastError: delivery.lastError,
    createdAt: delivery.createdAt.toISOString(),
  };
}

/** The webhook endpoints of the caller's organization, in the caller's mode (api-rules.md § Test mode and § Webhooks). */
@Injectable()
export class WebhooksService {
  constructor(
    private readonly audit: AuditTrail,
    private readonly repository: WebhooksRepository,
    private readonly secrets: WebhookSecrets,
    private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly tx: TransactionHost,
    events: DomainEvents,
  ) {
    // An erased attendee's events take their deliveries (payloads and attempts) with them, in the erasing transaction.
    events.onEventsErased((scope, eventIds, subjects) => this.repository.deleteDeliveriesAbout(scope, eventIds, subjects));
  }

  async create(principal: Principal, dto: CreateWebhookDto): Promise<CreatedWebhookResponse> {
    await this.assertAllowedUrl(dto.url);
    const id = newId('wh');
    const secret = newSigningSecret();
    const now = this.clock.now();
    const webhook = Object.assign(new Webhook(), {
      id,
      organizationId: principal.organizationId,
      livemode: principal.livemode,
      url: dto.url,
      events: dto.events,
      description: dto.description ?? null,
      active: dto.active ?? true,
      secretCiphertext: this.secrets.seal(secret, id),
      createdAt: now,
      updatedAt: now,
    } satisfies Webhook);
    await this.tx.transaction(() => this.repository.insert(tenantScope(principal), webhook));
    return { webhook: webhookView(webhook), secret };
  }

  /** Each with its failures of the last day, counted for the whole page at once (the console's home page lists them). */
  async list(principal: Principal, page: PageRequest): Promise<WebhookListResponse> {
    const scope = tenantScope(principal);
    const [webhooks, total] = await this.repository.list(scope, page);
    const since = new Date(this.clock.now().getTime() - FAILURE_WINDOW_MS);
    const ids = webhooks.map((webhook) => webhook.id);
    const failed = await this.repository.countFailedSince(scope, ids, since);
    return {
      webhooks: webhooks.map((webhook) => ({ ...webhookView(webhook), failedDeliveriesLast24h: failed.get(webhook.id) ?? 0 })),
      ...pageMeta(page, total),
    };
  }

  async get(principal: Principal, id: string): Promise<WebhookResponse> {
    return { webhook: webhookView(await this.find(principal, id)) };
  }

  async update(principal: Principal, id: string, dto: UpdateWebhookDto): Promise<WebhookResponse> {
    const before = await this.find(principal, id);
    if (dto.url !== undefined) await this.assertAllowedUrl(dto.url);
    const changes: WebhookChanges = { updatedAt: this.clock.now() };
    if (dto.url !== undefined) changes.url = dto.url;
    if (dto.events !== undefined) changes.events = dto.events;
    if (dto.description !== undefined) changes.description = dto.description;
    if (dto.active !== undefined) changes.active = dto.active;
    this.audit.describe({ changes: changesBetween(before, changes) });
    const updated = await this.tx.transaction(() => this.repository.update(tenantScope(principal), id, changes));
    if (!updated) throw AppError.notFound('Webhook');
    return { webhook: webhookView(updated) };
  }

  async remove(principal: Principal, id: string): Promise<void> {
    if (!looksLikeId(id, 'wh') || !(await this.tx.transaction(() => this.repository.delete(tenantScope(principal), id)))) {
      throw AppError.notFound('Webhook');
    }
  }

  /** A `webhook.test` event for this endpoint only, whatever it subscribes to. */
  async sendTest(principal: Principal, id: string): Promise<WebhookDeliveryResponse> {
    const webhook = await this.find(principal, id);
    const eventId = newId('whevt');
    const body = serializePayload({
      id: eventId,
      type: WEBHOOK_TEST_EVENT,
      createdAt: this.clock.now().toISOString(),
      livemode: webhook.livemode,
      data: { webhook: webhookView(webhook) },
    });
    const row = {
      id: newId('whdel'),
      webhookId: webhook.id,
      eventId,
      eventType: WEBHOOK_TEST_EVENT,
      body,
      maxAttempts: this.config.webhookRetrySchedule.length + 1,
    };
    const delivery = await this.tx.transaction(() => this.repository.insertDelivery(tenantScope(principal), row));
    return { delivery: deliveryView(delivery) };
  }

  async listDeliveries(principal: Principal, id: string, query: ListDeliveriesQueryDto): Promise<WebhookDeliveryListResponse> {
    const webhook = await this.find(principal, id);
    const page = { page: query.page, limit: query.limit };
    const [deliveries, total] = await this.repository.listDeliveries(tenantScope(principal), webhook.id, page, {
      status: query.status,
      since: query.since === undefined ? undefined : new Date(query.since),
    });
    return { deliveries: deliveries.map(deliveryView), ...pageMeta(page, total) };
  }

  async retryDelivery(principal: Principal, id: string, deliveryId: string): Promise<WebhookDeliveryResponse> {
    const webhook = await this.find(principal, id);
    const delivery = looksLikeId(deliveryId, 'whdel')
      ? await this.tx.transaction(() => this.repository.retryDelivery(tenantScope(principal), webhook.id, deliveryId))
      : null;
    if (!delivery) throw AppError.notFound('Delivery');
    return { delivery: deliveryView(delivery) };
  }

  /** Another organization's, another mode's and malformed ids are all simply not found. */
  private async find(principal: Principal, id: string): Promise<Webhook> {
    const webhook = looksLikeId(id, 'wh') ? await this.repository.find(tenantScope(principal), id) : null;
    if (!webhook) throw AppError.notFound('Webhook');
    return webhook;
  }

  private async assertAllowedUrl(url: string): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new UnsafeUrlError('url could not be checked in time; try again')), URL_CHECK_TIMEOUT_MS);
    });
    try {
      await Promise.race([checkWebhookUrl(url, { allowPrivate: this.config.webhookAllowPrivateUrls }), timeout]);
    } catch (error) {
      if (error instanceof UnsafeUrlError) throw AppError.validation('url', error.message);
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }
}
