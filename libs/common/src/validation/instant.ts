import { registerDecorator, type ValidationArguments, type ValidationOptions } from 'class-validator';
import { inputTimestampInstant, isStorableInstant } from '@app/availability';
import { isIanaTimeZone } from './time-zone.js';

const DATE_ONLY = /^(\d{4})-\d{2}-\d{2}$/;

/**
 * Whether a time input falls within years 1 to 9999 in UTC once converted (api-rules.md § Basics). A date counts
 * by its year; a timestamp without an offset is read in the zone of `zoneField` (UTC when that is missing or not a
 * zone, the service then reading it in the zone it settles on). Text that is no timestamp passes: its format is
 * another rule's to refuse, with its own message.
 */
export function isStorableTime(value: unknown, zone: string): boolean {
  if (value instanceof Date) return Number.isNaN(value.getTime()) || isStorableInstant(value.getTime());
  if (typeof value !== 'string') return true;
  const date = DATE_ONLY.exec(value);
  if (date) return Number(date[1]) >= 1;
  const instant = inputTimestampInstant(value, zone);
  return instant === null || isStorableInstant(instant);
}

/** A date, timestamp or Date within years 1 to 9999 after conversion to UTC; see isStorableTime. */
export function IsStorableTime(zoneField?: string, options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'isStorableTime',
      target: target.constructor,
      propertyName: String(propertyName),
      options: { message: `${String(propertyName)} must fall within the years 1 to 9999 (in UTC)`, ...options },
      validator: {
        validate: (value: unknown, args: ValidationArguments) => {
          const zone = zoneField === undefined ? undefined : (args.object as Record<string, unknown>)[zoneField];
          return isStorableTime(value, isIanaTimeZone(zone) ? zone : 'UTC');
        },
      },
    });
}
