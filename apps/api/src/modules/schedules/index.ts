// What other modules may use of this one; they import nothing else from its folder (module-boundaries.spec.ts).
export * from './dto/schedule.dto.js';
export * from './schedules.module.js';
export * from './schedules.service.js';
// The stored shapes, for the slot read model (availability), which reads these tables.
export type { OverrideType } from './entities/date-override.entity.js';
export type { StoredScheduleDay, StoredTimeSlot } from './entities/weekly-schedule.entity.js';
