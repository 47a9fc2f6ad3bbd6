export * from './types.js';
export { computeSlots } from './slots.js';
export { explainStart, occupiedHosts } from './explain.js';
export { explainRouted, routedQuery } from './routed.js';
export { explainSeries, type RefusedOccurrence, type SeriesVerdict } from './series.js';
export { slotsValidUntil } from './expiry.js';
export * from './host-limits.js';
export { addDays } from './calendar.js';
export {
  EARLIEST_INSTANT,
  formatInstantInZone,
  inputTimestampInstant,
  isStorableInstant,
  LATEST_INSTANT,
  localDateTimeToInstant,
  parseInputTimestamp,
} from './zoned-time.js';
export { countByLocalDate, dayStartInstant, formatInstantsInZone, localDateOf } from './zone-days.js';
