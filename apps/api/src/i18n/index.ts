export { CATALOGS, type BookerKey, type BookerMessages, type MailKey, type MailMessages } from './catalogs/index.js';
export { DEFAULT_LOCALE, isLocale, LOCALES, type Locale, readerLocale, type ReaderLocale } from './locales.js';
export { fullDateTime, message, relativeMinutes, type Translator, translator } from './messages.js';
export { type ParsedBookerCatalog, parsedBookerCatalog } from './booker-catalog.js';
