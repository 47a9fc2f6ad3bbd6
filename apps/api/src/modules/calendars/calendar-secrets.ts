import { Injectable } from '@nestjs/common';
import { AppConfig, SecretSealer } from '@app/common';

/** Calendar secrets at rest (ICS URLs, CalDAV passwords): the process's `SecretSealer` under ENCRYPTION_KEY. */
@Injectable()
export class CalendarSecrets extends SecretSealer {
  constructor(config: AppConfig) {
    super(config);
  }
}
