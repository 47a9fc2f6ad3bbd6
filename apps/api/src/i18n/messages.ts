import { TYPE } from '@formatjs/icu-messageformat-parser';
import { IntlMessageFormat } from 'intl-messageformat';
import { CATALOGS, type MailKey } from './catalogs/index.js';
import type { Locale, ReaderLocale } from './locales.js';

type Values = Record<string, string | number>;

/** Parsing a message costs far more than formatting it: one IntlMessageFormat per locale and key, kept. */
const compiled = new Map<string, IntlMessageFormat>();
/** The same for Intl's formatters: one per locale, zone and kind. */
const dateFormats = new Map<string, Intl.DateTimeFormat>();
const relativeFormats = new Map<string, Intl.RelativeTimeFormat>();

function compile(locale: Locale, key: MailKey): IntlMessageFormat {
  const id = `${locale}\u0000${key}`;
  let format = compiled.get(id);
  if (!format) {
    format = new IntlMessageFormat(CATALOGS[locale].mail[key], locale);
    compiled.set(id, format);
  }
  return format;
}

/**
 * How a reader's message is formatted: by intl-messageformat; a message of text and plain `{arguments}` only (most of
 * them) given strings is the concatenation of its parsed parts, which is what intl-messageformat would give, at a
 * tenth of the cost (a mail formats a dozen).
 */
type Formatter = (values: Values) => string;

function formatterOf(format: IntlMessageFormat): Formatter {
  const general: Formatter = (values) => {
    const text = format.format<string>(values);
    return typeof text === 'string' ? text : String(text);
  };
  const ast = format.getAst();
  if (!ast.every((element) => element.type === TYPE.literal || element.type === TYPE.argument)) return general;
  const parts = ast.map((element) => ({ argument: element.type === TYPE.argument, value: element.value }));
  return (values) => {
    let text = '';
    for (const part of parts) {
      if (!part.argument) text += part.value;
      else if (typeof values[part.value] === 'string') text += values[part.value] as string;
      else return general(values);
    }
    return text;
  };
}

/** A mail message of the catalog, formatted with ICU MessageFormat (intl-messageformat). */
export function message(locale: Locale, key: MailKey, values?: Values): string {
  const text = compile(locale, key).format<string>(values);
  return typeof text === 'string' ? text : String(text);
}

/** A date in full and its time (`dateStyle: "full"`, `timeStyle: "short"`) in `zone`, for `locale`, as Intl writes them. */
export function fullDateTime(locale: string, zone: string, at: Date): string {
  const id = `${locale}\u0000${zone}`;
  let format = dateFormats.get(id);
  if (!format) {
    format = new Intl.DateTimeFormat(locale, { dateStyle: 'full', timeStyle: 'short', timeZone: zone });
    // Locales and zones come from requests (well-formed and known ones only): keep the cache bounded all the same.
    if (dateFormats.size > 5000) dateFormats.clear();
    dateFormats.set(id, format);
  }
  return format.format(at);
}

/** "in 2 hours", "in 1 day": how far ahead `minutes` is, in the reader's language (Intl.RelativeTimeFormat). */
export function relativeMinutes(locale: string, minutes: number): string {
  let format = relativeFormats.get(locale);
  if (!format) {
    format = new Intl.RelativeTimeFormat(locale, { numeric: 'always' });
    if (relativeFormats.size > 1000) relativeFormats.clear();
    relativeFormats.set(locale, format);
  }
  if (minutes % 1440 === 0) return format.format(minutes / 1440, 'day');
  if (minutes % 60 === 0) return format.format(minutes / 60, 'hour');
  return format.format(minutes, 'minute');
}

/** A reader's message function and date formatting, bound to the reader's locale. */
export interface Translator {
  locale: ReaderLocale;
  t(key: MailKey, values?: Values): string;
  /** The full date and time in `zone`, the zone named (`mail.zoned`). */
  when(zone: string, at: Date): string;
}

const translators = new Map<string, Translator>();

export function translator(locale: ReaderLocale): Translator {
  const id = `${locale.catalog}\u0000${locale.dates}`;
  let found = translators.get(id);
  if (!found) {
    // The reader's own formats by key, and the messages without values as text: a mail asks for a dozen of them.
    const formats = new Map<MailKey, Formatter>();
    const constants = new Map<MailKey, string>();
    const t = (key: MailKey, values?: Values): string => {
      if (values === undefined) {
        let text = constants.get(key);
        if (text === undefined) constants.set(key, (text = message(locale.catalog, key)));
        return text;
      }
      let format = formats.get(key);
      if (!format) formats.set(key, (format = formatterOf(compile(locale.catalog, key))));
      return format(values);
    };
    found = {
      locale,
      t,
      when: (zone, at) => t('zoned', { datetime: fullDateTime(locale.dates, zone, at), zone }),
    };
    if (translators.size > 1000) translators.clear();
    translators.set(id, found);
  }
  return found;
}
