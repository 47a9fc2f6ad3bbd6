export * from './types.js';
export { computeSlots } from './slots.js';
export { explainStart, occupiedHosts } from './explain.js';
export { explainSeries, type RefusedOccurrence, type SeriesVerdict } from './series.js';
export { slotsValidUntil } from './expiry.js';
export * from './host-limits.js';
export { addDays } from './calendar.js';
export {
  countByLocalDate,
  dayStartInstant,
  EARLIEST_INSTANT,
  formatInstantInZone,
  inputTimestampInstant,
  isStorableInstant,
  LATEST_INSTANT,
  localDateOf,
  localDateTimeToInstant,
  parseInputTimestamp,
} from './zoned-time.js';
export { formatInstantsInZone } from './zone-days.js';
