export { type BusyInterval, type BusyOptions, busyFromICalendar, CalendarParseError } from './busy.js';
export { isIanaZone, resolveZone, type WallTime, type Zone } from './zones.js';
