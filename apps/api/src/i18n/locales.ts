import { match } from '@formatjs/intl-localematcher';

/** The locales with a catalog (contract § 23); `en` is the last resort. */
export const LOCALES = ['en', 'de', 'fr', 'es', 'pt-BR', 'nl', 'it', 'ja'] as const;
export type Locale = (typeof LOCALES)[number];

export const DEFAULT_LOCALE: Locale = 'en';

export function isLocale(value: unknown): value is Locale {
  return (LOCALES as readonly unknown[]).includes(value);
}

/** What a reader's mail is written in: the catalog, and the locale its dates are formatted for. */
export interface ReaderLocale {
  /** The catalog the messages come from. */
  catalog: Locale;
  /**
   * The locale `Intl` formats dates in: the reader's own tag when it is of the catalog's language and the runtime
   * knows it (`de-AT` reads the `de` catalog with Austrian month names), else the catalog's (`en`: en-GB).
   */
  dates: string;
}

const resolved = new Map<string, ReaderLocale>();

/**
 * BCP 47 lookup (contract § 23): the catalog the reader's tag matches (`de-AT` → `de`, `pt` → `pt-BR`, by CLDR's
 * language matching as `Intl.LocaleMatcher` does it), else the organization's default, else `en`. Memoized: every mail
 * asks, and the answers are few.
 */
export function readerLocale(requested: string | null | undefined, organizationDefault: string | null | undefined): ReaderLocale {
  const fallback = isLocale(organizationDefault) ? organizationDefault : DEFAULT_LOCALE;
  const key = `${requested ?? ''} ${fallback}`;
  let found = resolved.get(key);
  if (!found) {
    found = lookup(requested, fallback);
    // Tags come from requests: keep the map bounded (a handful of entries in practice).
    if (resolved.size > 1000) resolved.clear();
    resolved.set(key, found);
  }
  return found;
}

/**
 * The locale a catalog's dates are written in when the reader named no more than its language: the catalog's own, but
 * English keeps the mails' 24-hour clock and day-before-month order (en-GB), as they were before catalogs.
 */
function datesOf(catalog: Locale): string {
  return catalog === 'en' ? 'en-GB' : catalog;
}

function lookup(requested: string | null | undefined, fallback: Locale): ReaderLocale {
  if (!requested) return { catalog: fallback, dates: datesOf(fallback) };
  let catalog: Locale = fallback;
  try {
    const matched = match([requested], LOCALES, fallback, { algorithm: 'best fit' });
    if (isLocale(matched)) catalog = matched;
  } catch {
    return { catalog: fallback, dates: datesOf(fallback) };
  }
  if (requested === catalog) return { catalog, dates: datesOf(catalog) };
  const sameLanguage = new Intl.Locale(requested).language === new Intl.Locale(catalog).language;
  const known = sameLanguage && Intl.DateTimeFormat.supportedLocalesOf([requested]).length > 0;
  return { catalog, dates: known ? requested : datesOf(catalog) };
}
