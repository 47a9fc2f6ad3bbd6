import { registerDecorator, ValidationOptions } from 'class-validator';

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Far enough for any calendar, and the day after the last one still has four digits. */
export const MIN_YEAR = 1900;
export const MAX_YEAR = 2999;

/** A real calendar date 'YYYY-MM-DD' between MIN_YEAR and MAX_YEAR (2027-02-30 is refused). */
export function isCalendarDate(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const match = ISO_DATE.exec(value);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return year >= MIN_YEAR && year <= MAX_YEAR && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

export function IsCalendarDate(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'isCalendarDate',
      target: target.constructor,
      propertyName: String(propertyName),
      options: { message: `${String(propertyName)} must be a date YYYY-MM-DD between ${MIN_YEAR} and ${MAX_YEAR}`, ...options },
      validator: { validate: (value: unknown) => isCalendarDate(value) },
    });
}

/** Whole days from `from` to `to` (both valid dates); negative when `to` is earlier. */
export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}
