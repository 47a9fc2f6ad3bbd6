import { Injectable } from '@nestjs/common';
import { AppConfig } from '@app/common';
import { SecretBox } from './secret-box.js';

/** The one `SecretBox` of the process, keyed from JWT_SECRET (which main.ts settles before the app starts). */
@Injectable()
export class WebhookSecrets {
  private box: SecretBox | undefined;

  constructor(private readonly config: AppConfig) {}

  seal(secret: string, webhookId: string): string {
    return this.instance().seal(secret, webhookId);
  }

  open(sealed: string, webhookId: string): string {
    return this.instance().open(sealed, webhookId);
  }

  private instance(): SecretBox {
    if (!this.config.jwtSecret) throw new Error('JWT_SECRET is not set: webhook secrets cannot be encrypted');
    this.box ??= new SecretBox(this.config.jwtSecret);
    return this.box;
  }
}
