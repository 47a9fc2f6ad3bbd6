export {
  type BusyInterval,
  type BusyOptions,
  busyFromICalendar,
  CalendarParseError,
  CalendarTooLargeError,
  MAX_BUSY_INTERVALS,
  MAX_INSTANCES_PER_SERIES,
  MAX_RECURRENCE_STEPS,
} from './busy.js';
export { isIanaZone, resolveZone, type WallTime, type Zone } from './zones.js';
export { SERIES_FREQUENCIES, seriesStarts, type SeriesFrequency, type SeriesRule } from './series.js';
