import { Injectable, Logger } from '@nestjs/common';
import { forEachInBatches, KeyRotation, PeriodicJobs } from '../../jobs/index.js';
import { CalendarSecrets } from './calendar-secrets.service.js';
import { CalendarsRepository } from './calendars.repository.js';

const RESEAL_INTERVAL_MS = 60 * 60 * 1000;
const BATCH = 200;

/**
 * After an ENCRYPTION_KEY rotation, rewrites every ICS URL and CalDAV password that ENCRYPTION_KEY_PREVIOUS
 * sealed under the current key, so the previous key can be dropped. Runs when workers start and hourly
 * after; a connection changed meanwhile is left to the next round, one no key opens is logged and skipped. Each
 * round is reported to KeyRotation, which ends a rotation once nothing needs the previous key. Returns how many
 * connections it rewrote.
 */
@Injectable()
export class CalendarSecretReseal {
  private readonly logger = new Logger(CalendarSecretReseal.name);

  constructor(
    private readonly repository: CalendarsRepository,
    private readonly secrets: CalendarSecrets,
    private readonly rotation: KeyRotation,
    jobs: PeriodicJobs,
  ) {
    jobs.register('calendar-secret-reseal', RESEAL_INTERVAL_MS, () => this.resealAll());
  }

  async resealAll(): Promise<number> {
    let remaining = 0;
    const rewritten = await forEachInBatches(
      (after) => this.repository.sealedSecretsAfter(after, BATCH),
      async (row) => {
        let url: string | null;
        let password: string | null;
        try {
          url = this.secrets.resealed(row.url, row.id);
          password = this.secrets.resealed(row.password, row.id);
        } catch {
          this.logger.error(`Calendar connection ${row.id}: no configured ENCRYPTION_KEY opens its secrets`);
          return false;
        }
        if (url === null && password === null) return false;
        const swapped = await this.repository.replaceSealedSecrets(row.id, row, {
          url: url ?? row.url,
          password: password ?? row.password,
        });
        if (!swapped) remaining++;
        return swapped;
      },
    );
    await this.rotation.roundDone('calendar secrets', remaining);
    return rewritten;
  }
}
