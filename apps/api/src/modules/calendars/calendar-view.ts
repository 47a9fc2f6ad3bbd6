import type { CalendarView } from './dto/calendar.dto.js';
import type { CalendarConnection } from './entities/calendar-connection.entity.js';

/** What the API shows of a connection: never the sealed URL or password. */
export function calendarView(connection: CalendarConnection): CalendarView {
  return {
    id: connection.id,
    userId: connection.userId,
    type: connection.type,
    name: connection.name,
    url: connection.displayUrl,
    username: connection.username,
    blocksAvailability: connection.blocksAvailability,
    calendars: connection.calendars,
    status: connection.status,
    lastSyncedAt: connection.lastSyncedAt?.toISOString() ?? null,
    lastSyncError: connection.lastSyncError,
    busyCount: connection.busyCount,
    createdAt: connection.createdAt.toISOString(),
    updatedAt: connection.updatedAt.toISOString(),
  };
}

/** An ICS URL's path and query are its secret: scheme and host only, then `/…`. */
export function displayUrlOf(type: CalendarConnection['type'], url: URL): string {
  return type === 'ics' ? `${url.protocol}//${url.host}/…` : `${url.protocol}//${url.host}${url.pathname}`;
}
