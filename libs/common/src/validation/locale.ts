import { registerDecorator, ValidationOptions } from 'class-validator';

/**
 * A well-formed BCP 47 language tag (`de`, `de-AT`, `pt-BR`, `zh-Hant-TW`), by the runtime's own parser
 * (`Intl.getCanonicalLocales` throws RangeError for anything else), at most 35 characters: its canonical form
 * (`DE-at` → `de-AT`), or null. Any well-formed tag is kept; which catalog it reads is the lookup's business.
 */
export function canonicalLocale(value: unknown): string | null {
  if (typeof value !== 'string' || value.length === 0 || value.length > 35) return null;
  try {
    const [canonical] = Intl.getCanonicalLocales(value);
    return canonical ?? null;
  } catch {
    return null;
  }
}

/** class-transformer: a well-formed tag in its canonical form; anything else as it came (the validator refuses it). */
export const toCanonicalLocale = ({ value }: { value: unknown }): unknown => canonicalLocale(value) ?? value;

export function IsLocale(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'isLocale',
      target: target.constructor,
      propertyName: String(propertyName),
      options: { message: `${String(propertyName)} must be a BCP 47 language tag such as de or pt-BR`, ...options },
      validator: { validate: (value: unknown) => canonicalLocale(value) !== null },
    });
}
