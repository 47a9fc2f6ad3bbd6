import { Injectable } from '@nestjs/common';
import { forEachInBatches, PeriodicJobs } from '../../jobs/index.js';
import { WebhookQueueRepository } from './webhook-queue.repository.js';
import { WebhookSecrets } from './webhook-secrets.service.js';

const RESEAL_INTERVAL_MS = 60 * 60 * 1000;
const BATCH = 200;

/**
 * The re-encrypting migration of webhook secrets, as a job (a migration cannot hold the keys): rewrites
 * every secret not sealed with the current ENCRYPTION_KEY (the JWT_SECRET-derived `v1.` values from
 * before, or a previous ENCRYPTION_KEY) under it. It runs when workers start and hourly after; a value
 * changed meanwhile is left to the next round. Returns how many it rewrote.
 */
@Injectable()
export class WebhookSecretReseal {
  constructor(
    private readonly repository: WebhookQueueRepository,
    private readonly secrets: WebhookSecrets,
    jobs: PeriodicJobs,
  ) {
    jobs.register('webhook-secret-reseal', RESEAL_INTERVAL_MS, () => this.resealAll());
  }

  async resealAll(): Promise<number> {
    return forEachInBatches(
      (after) => this.repository.sealedSecretsAfter(after, BATCH),
      async (row) => {
        const resealed = this.secrets.resealed(row.sealed, row.id);
        return resealed !== null && this.repository.replaceSealedSecret(row.id, row.sealed, resealed);
      },
    );
  }
}
