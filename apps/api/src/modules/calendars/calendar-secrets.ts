import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AppConfig, ensureEncryptionKey } from '@app/common';

const VERSION = 'k1';

/**
 * AES-256-GCM with `ENCRYPTION_KEY` for calendar secrets at rest (ICS URLs, CalDAV passwords). The
 * connection id is bound in as associated data, so a value copied onto another row does not open.
 * `ENCRYPTION_KEY_PREVIOUS` still opens what the previous key sealed, during a rotation.
 */
@Injectable()
export class CalendarSecrets {
  private readonly keys: Buffer[];

  constructor(config: AppConfig) {
    this.keys = [ensureEncryptionKey(config), ...(config.encryptionKeyPrevious ? [config.encryptionKeyPrevious] : [])];
  }

  seal(plaintext: string, context: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.keys[0], iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [VERSION, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ciphertext.toString('base64url')].join('.');
  }

  /** Throws when no configured key opens it (tampered, moved to another row, or the key is gone). */
  open(sealed: string, context: string): string {
    const [version, iv, tag, ciphertext] = sealed.split('.');
    if (version !== VERSION || !iv || !tag || ciphertext === undefined) throw new Error('Unknown sealed format');
    for (const key of this.keys) {
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
        decipher.setAAD(Buffer.from(context, 'utf8'));
        decipher.setAuthTag(Buffer.from(tag, 'base64url'));
        return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
      } catch {
        // the next key, if any
      }
    }
    throw new Error('No configured key opens this secret');
  }
}
