import type { BookerKey } from '../../api/src/i18n/catalogs/types';
import english from 'virtual:booker-en';

/**
 * The booker's words come from the API's catalogs (contract § 23: one ICU MessageFormat catalog per locale, the same the
 * mails read), parsed by the ICU parser where they are built: English into this script at build time (vite.config.ts),
 * every other locale fetched on demand from `/booker/locales/<tag>.json` (apps/api/src/admin/booker-locales.ts, which
 * finds the catalog by the same BCP 47 lookup as the mails). This file only walks the parsed messages: a formatter with
 * its parser would not fit the 25 KB budget. Dates, times, weekdays and the first day of the week come from Intl.
 */

/** The ICU parser's elements (@formatjs/icu-messageformat-parser's TYPE): literal, argument, number, select, plural, #. */
export type Element =
  | { type: 0; value: string }
  | { type: 1; value: string }
  | { type: 2; value: string }
  | { type: 5; value: string; options: Record<string, { value: Element[] }> }
  | { type: 6; value: string; offset: number; pluralType: 'cardinal' | 'ordinal'; options: Record<string, { value: Element[] }> }
  | { type: 7 };

export type Messages = Record<BookerKey, Element[]>;

type Values = Record<string, string | number>;

function formatElements(elements: readonly Element[], locale: string, values: Values, count?: number): string {
  let out = '';
  for (const element of elements) {
    switch (element.type) {
      case 0:
        out += element.value;
        break;
      case 1:
      case 2:
        out +=
          typeof values[element.value] === 'number'
            ? new Intl.NumberFormat(locale).format(values[element.value] as number)
            : String(values[element.value] ?? '');
        break;
      case 5: {
        const chosen = element.options[String(values[element.value])] ?? element.options.other;
        out += chosen ? formatElements(chosen.value, locale, values, count) : '';
        break;
      }
      case 6: {
        const n = Number(values[element.value]);
        const exact = element.options[`=${n}`];
        const category = new Intl.PluralRules(locale, { type: element.pluralType }).select(n - element.offset);
        const chosen = exact ?? element.options[category] ?? element.options.other;
        out += chosen ? formatElements(chosen.value, locale, values, n - element.offset) : '';
        break;
      }
      case 7:
        out += count === undefined ? '#' : new Intl.NumberFormat(locale).format(count);
        break;
    }
  }
  return out;
}

/** The messages that take a value, and what it is. */
const TAKES = {
  heldFor: 'minutes',
  rateLimited: 'minutes',
  remaining: 'time',
  cancelUntil: 'time',
  rescheduleUntil: 'time',
  moveFrom: 'time',
  moveTo: 'time',
  rescheduled: 'time',
} as const satisfies Partial<Record<BookerKey, string>>;

type Taking = keyof typeof TAKES;

export type Strings = { [K in Exclude<BookerKey, Taking>]: string } & {
  [K in Taking]: (value: (typeof TAKES)[K] extends 'minutes' ? number : string) => string;
};

function stringsOf(locale: string, messages: Messages): Strings {
  const strings: Record<string, unknown> = {};
  for (const key of Object.keys(messages) as BookerKey[]) {
    const name = (TAKES as Partial<Record<BookerKey, string>>)[key];
    strings[key] = name
      ? (value: string | number) => formatElements(messages[key], locale, { [name]: value })
      : formatElements(messages[key], locale, {});
  }
  return strings as Strings;
}

const loaded = new Map<string, Promise<Strings>>();

/** English, built in: what the booker shows when it cannot fetch another locale, and for every English one. */
export const ENGLISH: Strings = stringsOf('en', english);

function isEnglish(locale: string): boolean {
  try {
    return new Intl.Locale(locale).language === 'en';
  } catch {
    return true;
  }
}

/**
 * The strings for a BCP 47 locale: the catalog its lookup finds (`de-AT` → `de`, `pt` → `pt-BR`), fetched once per
 * locale from `origin` (the script's); English, and anything that fails, from the built-in catalog.
 */
export function stringsFor(locale: string, origin: string): Promise<Strings> {
  if (isEnglish(locale)) return Promise.resolve(ENGLISH);
  let strings = loaded.get(locale);
  if (!strings) {
    strings = fetch(`${origin}/booker/locales/${encodeURIComponent(locale)}.json`)
      .then((response) => (response.ok ? (response.json() as Promise<{ locale: string; messages: Messages }>) : null))
      .then((body) => (body ? stringsOf(body.locale, body.messages) : ENGLISH))
      .catch(() => {
        loaded.delete(locale);
        return ENGLISH;
      });
    loaded.set(locale, strings);
  }
  return strings;
}

/** The locale as the API takes it (`attendee.locale`, canonical BCP 47), or undefined when it is not well-formed. */
export function canonicalLocale(locale: string): string | undefined {
  try {
    return Intl.getCanonicalLocales(locale)[0];
  } catch {
    return undefined;
  }
}
