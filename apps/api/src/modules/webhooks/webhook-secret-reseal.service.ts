import { Injectable, Logger } from '@nestjs/common';
import { forEachInBatches, KeyRotation, PeriodicJobs } from '../../jobs/index.js';
import { WebhookQueueRepository } from './webhook-queue.repository.js';
import { WebhookSecrets } from './webhook-secrets.service.js';

const RESEAL_INTERVAL_MS = 60 * 60 * 1000;
const BATCH = 200;

/**
 * The re-encrypting migration of webhook secrets, as a job (a migration cannot hold the keys): rewrites
 * every secret not sealed with the current ENCRYPTION_KEY (the JWT_SECRET-derived `v1.` values from
 * before, or a previous ENCRYPTION_KEY) under it. It runs when workers start and hourly after; a value
 * changed meanwhile is left to the next round, one no key opens is logged and skipped (no key can re-seal it,
 * and dropping the previous key loses nothing of it). Each round is reported to KeyRotation, which ends a
 * rotation once nothing needs the previous key. Returns how many it rewrote.
 */
@Injectable()
export class WebhookSecretReseal {
  private readonly logger = new Logger(WebhookSecretReseal.name);

  constructor(
    private readonly repository: WebhookQueueRepository,
    private readonly secrets: WebhookSecrets,
    private readonly rotation: KeyRotation,
    jobs: PeriodicJobs,
  ) {
    jobs.register('webhook-secret-reseal', RESEAL_INTERVAL_MS, () => this.resealAll());
  }

  async resealAll(): Promise<number> {
    let remaining = 0;
    const rewritten = await forEachInBatches(
      (after) => this.repository.sealedSecretsAfter(after, BATCH),
      async (row) => {
        let resealed: string | null;
        try {
          resealed = this.secrets.resealed(row.sealed, row.id);
        } catch {
          this.logger.error(`Webhook ${row.id}: no configured key opens its signing secret`);
          return false;
        }
        if (resealed === null) return false;
        const swapped = await this.repository.replaceSealedSecret(row.id, row.sealed, resealed);
        if (!swapped) remaining++;
        return swapped;
      },
    );
    await this.rotation.roundDone('webhook signing secrets', remaining);
    return rewritten;
  }
}
