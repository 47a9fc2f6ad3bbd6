import { Injectable } from '@nestjs/common';
import { AppConfig, SecretSealer } from '@app/common';

/** Calendar secrets at rest (ICS URLs, CalDAV passwords): the process's `SecretSealer` under ENCRYPTION_KEY. */
@Injectable()
export class CalendarSecrets extends SecretSealer {
  constructor(config: AppConfig) {
    super(config);
  }

  /** The value sealed under the current key, or null when it already is (or there is none). */
  resealed(sealed: string | null, connectionId: string): string | null {
    if (sealed === null || this.sealedWithCurrentKey(sealed, connectionId)) return null;
    return this.seal(this.open(sealed, connectionId), connectionId);
  }
}
