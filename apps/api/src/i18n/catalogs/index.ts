import type { Locale } from '../locales.js';
import * as de from './de.js';
import * as en from './en.js';
import * as es from './es.js';
import * as fr from './fr.js';
import * as it from './it.js';
import * as ja from './ja.js';
import * as nl from './nl.js';
import * as ptBR from './pt-BR.js';
import type { BookerMessages, MailMessages } from './types.js';

export type { BookerKey, BookerMessages, MailKey, MailMessages } from './types.js';

/** One catalog per locale (contract § 23), each a module of this folder. */
export const CATALOGS: Record<Locale, { mail: MailMessages; booker: BookerMessages }> = {
  en,
  de,
  fr,
  es,
  'pt-BR': ptBR,
  nl,
  it,
  ja,
};
