import { Injectable, Logger } from '@nestjs/common';
import { AppConfig, Clock } from '@app/common';
import { completeRotation } from '../encryption-key-check.js';

/**
 * Every kind of secret sealed with ENCRYPTION_KEY, each re-sealed by its module's job after a rotation. The
 * rotation ends only when each of them has reported a round that left nothing sealed with ENCRYPTION_KEY_PREVIOUS
 * in this process; a process that runs the jobs of only some of them never ends it. A new kind is added here.
 */
export const SEALED_SECRET_KINDS = ['webhook signing secrets', 'calendar secrets'] as const;
export type SealedSecretKind = (typeof SEALED_SECRET_KINDS)[number];

/**
 * Ends an ENCRYPTION_KEY rotation (encryption-key-check.ts): the boot check's value stays sealed with the previous
 * key, so an instance with the new key alone keeps being refused, until every sealed secret opens with the new key;
 * then the value is sealed again with it. The re-sealing jobs report their rounds here.
 */
@Injectable()
export class KeyRotation {
  private readonly logger = new Logger(KeyRotation.name);
  /** Per kind: whether its last round in this process left secrets that still need the previous key (unknown: true). */
  private readonly pending = new Map<SealedSecretKind, boolean>(SEALED_SECRET_KINDS.map((kind) => [kind, true]));
  private settled = false;

  constructor(
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  /**
   * A re-sealing round of `kind` ended; `remaining` secrets still need the previous key (their swap lost to a
   * concurrent change: the next round looks again). Re-seals the check value when no kind has any left.
   */
  async roundDone(kind: SealedSecretKind, remaining: number): Promise<void> {
    this.pending.set(kind, remaining > 0);
    // Without a previous key there is nothing to rotate from (the boot check matched the current key).
    if (this.settled || !this.config.encryptionKeyPrevious || [...this.pending.values()].some(Boolean)) return;
    const outcome = await completeRotation(this.config, this.clock.now());
    this.settled = true;
    if (outcome === 'rotated') this.logger.log('Every sealed secret opens with ENCRYPTION_KEY: the key check value is re-sealed with it');
  }
}
