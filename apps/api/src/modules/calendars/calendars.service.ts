import { Injectable, Logger } from '@nestjs/common';
import { addDays, dayStartInstant, formatInstantsInZone } from '@app/availability';
import {
  AppError,
  Clock,
  daysBetween,
  ErrorCode,
  isIanaTimeZone,
  isUniqueViolation,
  newId,
  pageMeta,
  type PageRequest,
  type Principal,
  sha256,
  tenantScope,
} from '@app/common';
import { TransactionHost } from '@app/database';
import { SchedulesService } from '../schedules/index.js';
import { CalendarSecrets } from './calendar-secrets.service.js';
import { CalendarSync } from './calendar-sync.service.js';
import { calendarView, displayUrlOf } from './calendar-view.js';
import { CalendarsRepository, SOURCE_KEY } from './calendars.repository.js';
import {
  BusyQueryDto,
  BusyResponse,
  CalendarListResponse,
  CalendarResponse,
  CreateCalendarDto,
  ListCalendarsQueryDto,
  UpdateCalendarDto,
} from './dto/calendar.dto.js';
import { CalendarConnection } from './entities/calendar-connection.entity.js';
import { normaliseSourceUrl, SourceError } from '../calendar-sources/index.js';
import { AuditTrail, changesBetween } from '../audit/index.js';

const MAX_CONNECTIONS_PER_MEMBER = 20;
const MAX_BUSY_DATES = 93;

function calendarExists(): AppError {
  return new AppError(ErrorCode.CALENDAR_EXISTS, 'This calendar is already connected for this member');
}

function limitReached(): AppError {
  return new AppError(ErrorCode.CALENDAR_LIMIT_REACHED, `A member may connect at most ${MAX_CONNECTIONS_PER_MEMBER} calendars`);
}

function unreachable(error: SourceError): AppError {
  return new AppError(ErrorCode.CALENDAR_UNREACHABLE, 'The calendar could not be read', [{ field: error.field, message: error.message }]);
}

@Injectable()
export class CalendarsService {
  private readonly logger = new Logger(CalendarsService.name);

  constructor(
    private readonly audit: AuditTrail,
    private readonly tx: TransactionHost,
    private readonly repository: CalendarsRepository,
    private readonly sync: CalendarSync,
    private readonly secrets: CalendarSecrets,
    private readonly schedules: SchedulesService,
    private readonly clock: Clock,
  ) {}

  /** Reads the source once before answering, so its busy times block from the moment of the 201. */
  async create(principal: Principal, userId: string | undefined, dto: CreateCalendarDto): Promise<CalendarResponse> {
    const scope = tenantScope(principal);
    const member = await this.schedules.targetMember(principal, userId);
    const raw = normaliseSourceUrl(dto.url);
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw AppError.validation('url', 'url must be an absolute http, https or webcal URL');
    }
    if (dto.type === 'caldav' && (!dto.username || !dto.password)) {
      throw AppError.validation(dto.username ? 'password' : 'username', 'CalDAV accounts need username and password');
    }
    const sourceHash = sha256(`${dto.type}\n${url.toString()}\n${dto.username ?? ''}`);
    // The cheap refusals first, so a duplicate or the 21st calendar never costs a request to the source;
    // both are checked again under the member's lock before the insert.
    if (await this.repository.sourceConnected(scope, member.memberId, sourceHash)) throw calendarExists();
    if ((await this.repository.countOfMember(scope, member.memberId)) >= MAX_CONNECTIONS_PER_MEMBER) throw limitReached();
    let content;
    try {
      content = await this.sync.read(scope, member.userId, {
        type: dto.type,
        url: url.toString(),
        validators: null,
        username: dto.username,
        password: dto.password,
      });
    } catch (error) {
      if (error instanceof SourceError && error.field === 'url' && /^url must|^refused/.test(error.message)) {
        throw AppError.validation('url', error.message);
      }
      if (error instanceof SourceError) {
        if (error.detail) this.logger.warn(`Calendar source could not be read: ${error.message} (${error.detail})`);
        throw unreachable(error);
      }
      throw error;
    }
    if (content.notModified) throw new Error('A first read cannot be a 304');
    const now = this.clock.now();
    const id = newId('cal');
    const connection = Object.assign(new CalendarConnection(), {
      id,
      organizationId: scope.organizationId,
      memberId: member.memberId,
      userId: member.userId,
      type: dto.type,
      name: dto.name ?? url.host,
      displayUrl: displayUrlOf(dto.type, url),
      sealedUrl: this.secrets.seal(url.toString(), id),
      sourceHash,
      username: dto.username ?? null,
      sealedPassword: dto.password ? this.secrets.seal(dto.password, id) : null,
      blocksAvailability: true,
      calendars: content.calendars,
      status: 'ok',
      lastSyncedAt: now,
      lastSyncError: null,
      busyCount: 0,
      etag: content.validators.etag,
      lastModified: content.validators.lastModified,
      nextSyncAt: now,
      lockedUntil: null,
      createdAt: now,
      updatedAt: now,
    } satisfies CalendarConnection);
    try {
      await this.tx.transaction(async () => {
        await this.repository.lockMember(scope, member.memberId);
        if ((await this.repository.countOfMember(scope, member.memberId)) >= MAX_CONNECTIONS_PER_MEMBER) throw limitReached();
        await this.repository.insert(scope, connection);
        connection.busyCount = await this.repository.replaceBusy(scope, id, member.userId, content.busy, {
          status: 'ok',
          lastSyncError: null,
          lastSyncedAt: now,
          etag: connection.etag,
          lastModified: connection.lastModified,
          updatedAt: now,
          nextSyncInSeconds: this.configInterval(),
        });
      });
    } catch (error) {
      if (isUniqueViolation(error, SOURCE_KEY)) throw calendarExists();
      throw error;
    }
    return { calendar: calendarView(connection) };
  }

  async list(principal: Principal, query: ListCalendarsQueryDto): Promise<CalendarListResponse> {
    const member = await this.schedules.targetMember(principal, query.userId);
    const page: PageRequest = { page: query.page, limit: query.limit };
    const [connections, total] = await this.repository.list(tenantScope(principal), member.userId, page);
    return { calendars: connections.map(calendarView), ...pageMeta(page, total) };
  }

  async get(principal: Principal, id: string): Promise<CalendarResponse> {
    return { calendar: calendarView(await this.owned(principal, id)) };
  }

  async update(principal: Principal, id: string, dto: UpdateCalendarDto): Promise<CalendarResponse> {
    const scope = tenantScope(principal);
    const connection = await this.owned(principal, id);
    if (dto.calendars !== undefined || dto.password !== undefined) {
      if (connection.type !== 'caldav')
        throw AppError.validation(dto.password !== undefined ? 'password' : 'calendars', 'only CalDAV accounts have these');
    }
    const changes: Partial<CalendarConnection> = { updatedAt: this.clock.now() };
    if (dto.name !== undefined) changes.name = dto.name;
    if (dto.blocksAvailability !== undefined) changes.blocksAvailability = dto.blocksAvailability;
    if (dto.password !== undefined) changes.sealedPassword = this.secrets.seal(dto.password, connection.id);
    if (dto.calendars !== undefined) changes.calendars = this.changedCalendars(connection, dto);
    this.audit.describe({ changes: changesBetween(connection, changes) });
    await this.tx.transaction(async () => {
      await this.repository.lockMember(scope, connection.memberId);
      // One destination per member across all its connections: choosing one clears the others.
      if (changes.calendars?.some((calendar) => calendar.isDestination))
        await this.repository.clearDestinations(scope, connection.memberId);
      await this.repository.update(scope, id, changes);
    });
    // New calendar flags or a new password take effect at the next sync, which starts now.
    if (dto.calendars !== undefined || dto.password !== undefined) await this.tx.transaction(() => this.repository.requestSync(scope, id));
    return { calendar: calendarView(Object.assign(connection, changes)) };
  }

  private changedCalendars(connection: CalendarConnection, dto: UpdateCalendarDto): CalendarConnection['calendars'] {
    const calendars = connection.calendars.map((calendar) => ({ ...calendar }));
    const destinations = (dto.calendars ?? []).filter((change) => change.isDestination === true);
    if (destinations.length > 1) throw AppError.validation('calendars', 'at most one calendar may be the destination');
    (dto.calendars ?? []).forEach((change, index) => {
      const calendar = calendars.find((c) => c.id === change.id);
      if (!calendar) throw AppError.validation(`calendars[${index}].id`, 'not a calendar of this account');
      if (change.blocksAvailability !== undefined) calendar.blocksAvailability = change.blocksAvailability;
      if (change.isDestination !== undefined) calendar.isDestination = change.isDestination;
    });
    if (destinations.length === 1) for (const calendar of calendars) calendar.isDestination = calendar.id === destinations[0].id;
    return calendars;
  }

  async remove(principal: Principal, id: string): Promise<void> {
    const connection = await this.owned(principal, id);
    if (!(await this.tx.transaction(() => this.repository.delete(tenantScope(principal), connection.id))))
      throw AppError.notFound('Calendar');
  }

  /** 202: the connection is due now and a worker of any instance syncs it. */
  async requestSync(principal: Principal, id: string): Promise<CalendarResponse> {
    const connection = await this.owned(principal, id);
    await this.tx.transaction(() => this.repository.requestSync(tenantScope(principal), connection.id));
    return { calendar: calendarView(connection) };
  }

  async busy(principal: Principal, query: BusyQueryDto): Promise<BusyResponse> {
    const timeZone = query.timezone ?? 'UTC';
    if (!isIanaTimeZone(timeZone)) throw AppError.validation('timezone', 'timezone must be an IANA time zone such as Europe/Berlin');
    const span = daysBetween(query.start, query.end);
    if (span < 0) throw AppError.validation('end', 'end must not be before start');
    if (span >= MAX_BUSY_DATES) throw AppError.validation('end', `at most ${MAX_BUSY_DATES} dates per request`);
    const member = await this.schedules.targetMember(principal, query.userId);
    const from = dayStartInstant(query.start, timeZone);
    const to = dayStartInstant(addDays(query.end, 1), timeZone);
    const rows = await this.repository.busyOf(tenantScope(principal), member.userId, new Date(from), new Date(to));
    const texts = formatInstantsInZone(
      rows.flatMap((row) => [row.start.getTime(), row.end.getTime()]),
      timeZone,
    );
    return {
      busy: rows.map((row, i) => ({ start: texts[2 * i], end: texts[2 * i + 1], calendarId: row.connectionId })),
      timezone: timeZone,
    };
  }

  /** The connection, when the caller may manage its member's calendars (as for schedules); else 404 or 403. */
  private async owned(principal: Principal, id: string): Promise<CalendarConnection> {
    const connection = await this.repository.find(tenantScope(principal), id);
    if (!connection) throw AppError.notFound('Calendar');
    await this.schedules.targetMember(principal, connection.userId);
    return connection;
  }

  private configInterval(): number {
    return this.sync.intervalSeconds;
  }
}
