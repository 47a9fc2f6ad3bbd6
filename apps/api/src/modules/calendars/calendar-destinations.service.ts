import { Injectable } from '@nestjs/common';
import type { TenantScope } from '@app/common';
import type { DavAccount } from '../calendar-sources/index.js';
import { CalendarSecrets } from './calendar-secrets.service.js';
import { CalendarsRepository } from './calendars.repository.js';

/** A host's destination calendar: the CalDAV calendar write-backs go to. */
export interface CalendarDestination {
  calendarId: string;
  /** The account's URL and credentials, opened now; throws when no configured key opens its sealed secrets. */
  account(): DavAccount;
}

/** What modules/calendar-writes asks of a host's connections: where a booking goes, and the account to write with. */
@Injectable()
export class CalendarDestinations {
  constructor(
    private readonly repository: CalendarsRepository,
    private readonly secrets: CalendarSecrets,
  ) {}

  /** The host's destination calendar, or null when none of their CalDAV connections has one. */
  async of(scope: TenantScope, userId: string): Promise<CalendarDestination | null> {
    const destination = await this.repository.destinationOf(scope, userId);
    if (!destination) return null;
    const { connection, calendarId } = destination;
    return {
      calendarId,
      account: () => ({
        url: this.secrets.open(connection.sealedUrl, connection.id),
        username: connection.username ?? '',
        password: connection.sealedPassword ? this.secrets.open(connection.sealedPassword, connection.id) : '',
      }),
    };
  }
}
