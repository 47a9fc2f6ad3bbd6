// What other modules may use of this one; they import nothing else from its folder (module-boundaries.spec.ts).
export { CalendarSourcesModule } from './calendar-sources.module.js';
export { CalendarParser } from './calendar-parser.service.js';
export { CalDavReader, type DavAccount, type RemoteCalendar } from './caldav-source.js';
export { IcsFetcher, normaliseSourceUrl, SourceError, type Validators } from './ics-source.js';
