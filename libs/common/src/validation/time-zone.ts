import { registerDecorator, ValidationOptions } from 'class-validator';

const known = new Map<string, boolean>();

/** An IANA zone the runtime knows (Intl throws RangeError for anything else). */
export function isIanaTimeZone(value: unknown): value is string {
  if (typeof value !== 'string' || value.length === 0 || value.length > 64) return false;
  let ok = known.get(value);
  if (ok === undefined) {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: value });
      ok = /^[A-Za-z_]+(\/[A-Za-z0-9_+-]+)*$/.test(value);
    } catch {
      ok = false;
    }
    // Only known zones are remembered: caching every rejected string would let callers grow the map without bound.
    if (ok) known.set(value, ok);
  }
  return ok;
}

export function IsIanaTimeZone(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'isIanaTimeZone',
      target: target.constructor,
      propertyName: String(propertyName),
      options: { message: `${String(propertyName)} must be an IANA time zone such as Europe/Berlin`, ...options },
      validator: { validate: (value: unknown) => isIanaTimeZone(value) },
    });
}
