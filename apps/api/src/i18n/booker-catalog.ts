import { type MessageFormatElement, parse } from '@formatjs/icu-messageformat-parser';
import { CATALOGS } from './catalogs/index.js';
import type { Locale } from './locales.js';

/** A locale's booker messages as the ICU parser gives them: what the booker walks (apps/booker/src/i18n.ts). */
export interface ParsedBookerCatalog {
  locale: Locale;
  messages: Record<string, MessageFormatElement[]>;
}

const parsed = new Map<Locale, ParsedBookerCatalog>();

export function parsedBookerCatalog(locale: Locale): ParsedBookerCatalog {
  let catalog = parsed.get(locale);
  if (!catalog) {
    const messages = Object.fromEntries(Object.entries(CATALOGS[locale].booker).map(([key, message]) => [key, parse(message)]));
    catalog = { locale, messages };
    parsed.set(locale, catalog);
  }
  return catalog;
}
