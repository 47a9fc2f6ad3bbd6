import { CATALOGS } from './catalogs/index.js';
import { catalogProblems, placeholdersOf } from './catalog-check.js';
import { LOCALES, readerLocale } from './locales.js';
import { message, translator } from './messages.js';
import type { MailKey } from './catalogs/index.js';

const sections = ['mail', 'booker'] as const;

describe('the message catalogs (contract § 23)', () => {
  it('has one catalog per locale: en, de, fr, es, pt-BR, nl, it, ja', () => {
    expect(Object.keys(CATALOGS).sort()).toEqual([...LOCALES].sort());
    expect([...LOCALES].sort()).toEqual(['de', 'en', 'es', 'fr', 'it', 'ja', 'nl', 'pt-BR']);
  });

  it.each(sections)('gives every locale every %s key with the same placeholders, each message parsed by the ICU parser', (section) => {
    const all = Object.fromEntries(LOCALES.map((locale) => [locale, CATALOGS[locale][section] as Record<string, string>]));
    expect(catalogProblems(CATALOGS.en[section], all)).toEqual([]);
  });

  it('fails a catalog that misses a key, loses or renames a placeholder, changes a select, or does not parse', () => {
    const reference = CATALOGS.en.mail;
    const { when: _dropped, ...missing } = CATALOGS.de.mail;
    expect(
      catalogProblems(reference, {
        missing,
        lost: { ...CATALOGS.de.mail, 'subject.reminder': 'Erinnerung' },
        renamed: { ...CATALOGS.de.mail, booking: 'Buchung: {bookingId}' },
        select: { ...CATALOGS.de.mail, 'lead.noShow': '{party, select, host {H} other {O}}' },
        broken: { ...CATALOGS.de.mail, whenMany: 'Wann ({count, plural, one {# Termin}}):' },
        extra: { ...CATALOGS.de.mail, surplus: 'x' } as Record<string, string>,
      }),
    ).toEqual([
      'missing: when is missing',
      'lost: subject.reminder has {}, not {title:argument}',
      'renamed: booking has {bookingId:argument}, not {id:argument}',
      'select: lead.noShow has {party:select=host|other}, not {party:select=attendee|other}',
      expect.stringMatching(/^broken: whenMany does not parse/),
      'extra: surplus is not in the reference catalog',
    ]);
  });

  it('reads placeholders inside plural and select branches', () => {
    expect(placeholdersOf('{n, plural, one {# {thing}} other {# {things}}}')).toEqual(['n:plural', 'thing:argument', 'things:argument']);
  });

  it('formats plurals the way each language does them', () => {
    const dates = (locale: (typeof LOCALES)[number], count: number) => message(locale, 'whenMany', { count });
    expect([dates('en', 1), dates('en', 2)]).toEqual(['When (1 date):', 'When (2 dates):']);
    expect([dates('de', 1), dates('de', 4)]).toEqual(['Wann (1 Termin):', 'Wann (4 Termine):']);
    // French counts 0 and 1 as singular; Japanese has no plural.
    expect(dates('fr', 0)).toBe('Quand (0 date) :');
    expect(dates('ja', 3)).toBe('日時（3件）：');
  });

  it('formats every mail message of every locale as intl-messageformat does, the quick path for plain arguments included', () => {
    const values = { title: 'Intro, call', names: 'Ann; Bo', id: 'bkg_1', when: 'x', count: 3, party: 'host', relative: 'in 1 h' };
    for (const locale of LOCALES) {
      const tr = translator(readerLocale(locale, null));
      for (const key of Object.keys(CATALOGS[locale].mail) as MailKey[]) {
        const wanted = Object.fromEntries(
          placeholdersOf(CATALOGS.en.mail[key])
            .map((p) => p.split(':')[0])
            .map((name) => [name, values[name as keyof typeof values] ?? `<${name}>`]),
        );
        expect({ locale, key, text: tr.t(key, wanted) }).toEqual({ locale, key, text: message(locale, key, wanted) });
      }
    }
  });
});
