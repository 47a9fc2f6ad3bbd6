import type { booker, mail } from './en.js';

/** Every catalog has the English one's keys (the ICU placeholders are checked by i18n/catalogs.spec.ts). */
export type MailKey = keyof typeof mail;
export type BookerKey = keyof typeof booker;
export type MailMessages = Record<MailKey, string>;
export type BookerMessages = Record<BookerKey, string>;
