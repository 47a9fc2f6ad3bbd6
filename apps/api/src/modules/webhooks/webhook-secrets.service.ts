import { Injectable, Logger } from '@nestjs/common';
import { AppConfig, SecretSealer } from '@app/common';
import { SecretBox } from './secret-box.js';

/**
 * Webhook signing secrets at rest, sealed with ENCRYPTION_KEY (api-rules.md § Calendars). Secrets sealed
 * before that, with the key derived from JWT_SECRET (`v1.` values), still open, and the
 * `webhook-secret-reseal` job rewrites them, and those of a previous ENCRYPTION_KEY, under the current key.
 */
@Injectable()
export class WebhookSecrets {
  private readonly logger = new Logger(WebhookSecrets.name);
  private readonly sealer: SecretSealer;
  private legacy: SecretBox | undefined;

  constructor(private readonly config: AppConfig) {
    this.sealer = new SecretSealer(config);
  }

  seal(secret: string, webhookId: string): string {
    return this.sealer.seal(secret, webhookId);
  }

  open(sealed: string, webhookId: string): string {
    return SecretSealer.isSealed(sealed) ? this.sealer.open(sealed, webhookId) : this.legacyBox().open(sealed, webhookId);
  }

  /** The value sealed under the current key, or null when it already is. */
  resealed(sealed: string, webhookId: string): string | null {
    if (SecretSealer.isSealed(sealed) && this.sealer.sealedWithCurrentKey(sealed, webhookId)) return null;
    return this.seal(this.open(sealed, webhookId), webhookId);
  }

  private legacyBox(): SecretBox {
    if (!this.config.jwtSecret) {
      this.logger.error('A webhook secret sealed with the JWT_SECRET-derived key cannot be opened without JWT_SECRET');
      throw new Error('JWT_SECRET is not set: a legacy webhook secret cannot be opened');
    }
    this.legacy ??= new SecretBox(this.config.jwtSecret);
    return this.legacy;
  }
}
