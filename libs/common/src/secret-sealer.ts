import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AppConfig, ensureEncryptionKey } from './config/index.js';

const VERSION = 'k1';

/**
 * AES-256-GCM with `ENCRYPTION_KEY` for secrets at rest that must be readable again (webhook signing
 * secrets, ICS URLs, CalDAV passwords). The row's id is bound in as associated data, so a value copied
 * onto another row does not open. `ENCRYPTION_KEY_PREVIOUS` still opens what the previous key sealed
 * (`sealedWithCurrentKey` tells the re-sealing jobs what to rewrite).
 */
@Injectable()
export class SecretSealer {
  private readonly keys: Buffer[];

  constructor(config: AppConfig) {
    this.keys = [ensureEncryptionKey(config), ...(config.encryptionKeyPrevious ? [config.encryptionKeyPrevious] : [])];
  }

  static isSealed(value: string): boolean {
    return value.startsWith(`${VERSION}.`);
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
    return this.openWithKey(sealed, context).plaintext;
  }

  /** Whether the current key (not the previous one) sealed it. */
  sealedWithCurrentKey(sealed: string, context: string): boolean {
    return this.openWithKey(sealed, context).keyIndex === 0;
  }

  private openWithKey(sealed: string, context: string): { plaintext: string; keyIndex: number } {
    const [version, iv, tag, ciphertext] = sealed.split('.');
    if (version !== VERSION || !iv || !tag || ciphertext === undefined) throw new Error('Unknown sealed format');
    for (const [keyIndex, key] of this.keys.entries()) {
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
        decipher.setAAD(Buffer.from(context, 'utf8'));
        decipher.setAuthTag(Buffer.from(tag, 'base64url'));
        const plaintext = Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
        return { plaintext, keyIndex };
      } catch {
        // the next key, if any
      }
    }
    throw new Error('No configured key opens this secret');
  }
}
