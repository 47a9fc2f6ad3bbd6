import { Injectable } from '@nestjs/common';
import {
  type AttemptRecord,
  type ClaimedDelivery,
  type QueuedDeliveryRow,
  type SubscribedWebhook,
  WebhookQueueRepository,
} from './webhook-queue.repository.js';
import { WebhookSecrets } from './webhook-secrets.service.js';

/**
 * What the delivery workers (modules/webhook-deliveries) may do with the webhooks' tables: fan events out into
 * deliveries, lease due ones, record attempts, expire finished ones. The tables stay this module's; a claim carries
 * its webhook's URL and sealed secret, which only this module opens.
 */
@Injectable()
export class WebhookQueue {
  constructor(
    private readonly repository: WebhookQueueRepository,
    private readonly secrets: WebhookSecrets,
  ) {}

  activeWebhooks(organizationIds: string[]): Promise<SubscribedWebhook[]> {
    return this.repository.activeWebhooks(organizationIds);
  }

  insertDeliveries(rows: QueuedDeliveryRow[]): Promise<void> {
    return this.repository.insertDeliveries(rows);
  }

  claimDue(limit: number, leaseSeconds: number): Promise<ClaimedDelivery[]> {
    return this.repository.claimDue(limit, leaseSeconds);
  }

  recordAttempts(records: AttemptRecord[]): Promise<void> {
    return this.repository.recordAttempts(records);
  }

  msUntilNextDue(): Promise<number | null> {
    return this.repository.msUntilNextDue();
  }

  deleteFinishedBefore(cutoff: Date): Promise<number> {
    return this.repository.deleteFinishedBefore(cutoff);
  }

  /**
   * One round of retention (docs/operating/partitions.md): the attempt log's coming months made and its months wholly
   * older than `cutoff` dropped (unless a delivery made before a month's end is still pending), then the finished
   * deliveries older than `cutoff` deleted, with what is left of their attempts (ON DELETE CASCADE). Returns how many
   * deliveries went.
   */
  async retain(now: Date, cutoff: Date): Promise<number> {
    await this.repository.attemptPartitions.prepare(now);
    await this.repository.attemptPartitions.dropExpired(cutoff);
    return this.repository.deleteFinishedBefore(cutoff);
  }

  /** The claimed delivery's signing secret; throws when no configured key opens it. */
  openSecret(delivery: ClaimedDelivery): string {
    return this.secrets.open(delivery.secretCiphertext, delivery.webhookId);
  }
}
