import { Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { type BusyInterval, CalendarParseError, CalendarTooLargeError } from '@app/calendar';
import { AppConfig, Clock, liveScopeOf, type TenantScope } from '@app/common';
import { TransactionHost } from '@app/database';
import { SchedulesService } from '../schedules/index.js';
import { DomainEvents } from '../outbox/index.js';
import { CalendarSecrets } from './calendar-secrets.service.js';
import { calendarView } from './calendar-view.js';
import { CalendarsRepository } from './calendars.repository.js';
import { CalDavReader, CalendarParser, IcsFetcher, type RemoteCalendar, SourceError, type Validators } from '../calendar-sources/index.js';
import type { CalendarConnection } from './entities/calendar-connection.entity.js';

const DAY_MS = 86_400_000;
/** The sync window: from yesterday to 730 days ahead (api-rules.md § Calendars). */
const WINDOW_BEFORE_DAYS = 1;
const WINDOW_AFTER_DAYS = 730;

export interface ReadSource {
  type: CalendarConnection['type'];
  url: string;
  validators: Validators | null;
  /** CalDAV only. */
  username?: string | null;
  password?: string | null;
  /** CalDAV only: the calendars as configured so far (their flags are kept). */
  calendars?: readonly RemoteCalendar[];
}

export type SourceContent =
  { notModified: true } | { notModified: false; busy: BusyInterval[]; validators: Validators; calendars: RemoteCalendar[] };

/** Reads a source and turns it into busy intervals; shared by creation (before the 201) and the sync job. */
@Injectable()
export class CalendarSync implements OnModuleDestroy {
  private readonly logger = new Logger('CalendarSync');
  private readonly ics: IcsFetcher;
  private readonly caldav: CalDavReader;

  constructor(
    private readonly tx: TransactionHost,
    private readonly repository: CalendarsRepository,
    private readonly secrets: CalendarSecrets,
    private readonly schedules: SchedulesService,
    private readonly events: DomainEvents,
    private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly parser: CalendarParser,
  ) {
    this.ics = new IcsFetcher(config.calendarAllowPrivateUrls, config.calendarTimeoutMs);
    this.caldav = new CalDavReader(config.calendarAllowPrivateUrls, config.calendarTimeoutMs);
  }

  get intervalSeconds(): number {
    return this.config.calendarSyncIntervalSeconds;
  }

  onModuleDestroy(): void {
    this.ics.close();
    this.caldav.close();
  }

  /** Throws SourceError when the source cannot be read or is not iCalendar. */
  async read(scope: TenantScope, userId: string, source: ReadSource): Promise<SourceContent> {
    const now = this.clock.now().getTime();
    const window = { from: now - WINDOW_BEFORE_DAYS * DAY_MS, to: now + WINDOW_AFTER_DAYS * DAY_MS };
    const timeZone = await this.schedules.timezoneOf(scope, userId);
    if (source.type === 'caldav') {
      const account = { url: source.url, username: source.username ?? '', password: source.password ?? '' };
      const { calendars, texts } = await this.caldav.objects(account, source.calendars ?? [], new Date(window.from), new Date(window.to));
      const busy = await this.parse({ texts, eachOnItsOwn: true, timeZone, ...window });
      return { notModified: false, busy, validators: { etag: null, lastModified: null }, calendars };
    }
    const fetched = await this.ics.fetch(source.url, source.validators);
    if (fetched.notModified) return { notModified: true };
    const busy = await this.parse({ texts: [fetched.text], eachOnItsOwn: false, timeZone, ...window });
    return { notModified: false, busy, validators: fetched.validators, calendars: [] };
  }

  private async parse(request: Parameters<CalendarParser['busy']>[0]): Promise<BusyInterval[]> {
    try {
      return await this.parser.busy(request);
    } catch (error) {
      if (error instanceof CalendarParseError) throw new SourceError('url', 'the address does not serve an iCalendar (.ics) calendar');
      if (error instanceof CalendarTooLargeError) throw new SourceError('url', `the calendar is too large to read: ${error.message}`);
      throw error;
    }
  }

  /**
   * One background or on-demand sync of a stored connection. Success replaces its busy times in one
   * transaction; failure keeps them, sets status error and, when it turns from ok to error, records
   * `calendar.sync_failed`.
   */
  async sync(scope: TenantScope, connection: CalendarConnection): Promise<void> {
    const now = this.clock.now();
    const next = this.config.calendarSyncIntervalSeconds;
    try {
      const content = await this.read(scope, connection.userId, {
        type: connection.type,
        url: this.secrets.open(connection.sealedUrl, connection.id),
        validators: connection.status === 'ok' ? { etag: connection.etag, lastModified: connection.lastModified } : null,
        username: connection.username,
        password: connection.sealedPassword ? this.secrets.open(connection.sealedPassword, connection.id) : null,
        calendars: connection.calendars,
      });
      if (content.notModified) {
        const unchanged = { status: 'ok' as const, lastSyncError: null, lastSyncedAt: now, updatedAt: now, nextSyncInSeconds: next };
        await this.tx.transaction(() => this.repository.recordSync(scope, connection.id, unchanged));
        return;
      }
      const synced = {
        status: 'ok' as const,
        lastSyncError: null,
        lastSyncedAt: now,
        etag: content.validators.etag,
        lastModified: content.validators.lastModified,
        updatedAt: now,
        nextSyncInSeconds: next,
        ...(connection.type === 'caldav' ? { calendars: content.calendars } : {}),
      };
      await this.tx.transaction(() => this.repository.replaceBusy(scope, connection.id, connection.userId, content.busy, synced));
    } catch (error) {
      const message = error instanceof SourceError ? error.message : 'the calendar could not be read';
      if (!(error instanceof SourceError))
        this.logger.warn({ msg: 'Calendar sync failed', calendarId: connection.id, error: errorName(error) });
      else if (error.detail) this.logger.warn({ msg: 'Calendar sync failed', calendarId: connection.id, error: error.detail });
      await this.tx.transaction(async () => {
        await this.repository.recordSync(scope, connection.id, {
          status: 'error',
          lastSyncError: message,
          updatedAt: now,
          nextSyncInSeconds: next,
        });
        if (connection.status === 'ok') {
          const failed = { ...connection, status: 'error' as const, lastSyncError: message, updatedAt: now };
          await this.events.record(liveScopeOf(scope), { type: 'calendar.sync_failed', data: { calendar: calendarView(failed) } });
        }
      });
    }
  }
}

function errorName(error: unknown): string {
  return error instanceof Error ? error.name : 'error';
}
