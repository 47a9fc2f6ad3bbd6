import { Module } from '@nestjs/common';
import { CalendarParser } from './calendar-parser.service.js';

/**
 * Reading (and writing) hosts' calendars where they live, for modules/calendars and modules/calendar-writes: the ICS
 * fetcher and the CalDAV client (on the guarded HTTP client: the URL rules of webhooks, a size cap, a timeout) and the
 * parser's worker threads. It owns no table and imports no module.
 */
@Module({
  providers: [CalendarParser],
  exports: [CalendarParser],
})
export class CalendarSourcesModule {}
