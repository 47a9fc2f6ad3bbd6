import { readerLocale } from './locales.js';

describe('readerLocale: BCP 47 lookup with fallbacks (contract § 23)', () => {
  it.each([
    ['de-AT', 'en', 'de', 'de-AT'],
    ['pt', 'en', 'pt-BR', 'pt'],
    ['pt-BR', 'de', 'pt-BR', 'pt-BR'],
    ['ja-JP', 'en', 'ja', 'ja-JP'],
    ['en-GB', 'de', 'en', 'en-GB'],
    ['zz', 'fr', 'fr', 'fr'],
    ['zz', null, 'en', 'en-GB'],
    ['en', 'de', 'en', 'en-GB'],
    ['en-US', 'de', 'en', 'en-US'],
    [null, 'nl', 'nl', 'nl'],
    [null, null, 'en', 'en-GB'],
    ['de', 'xx-unknown', 'de', 'de'],
  ])('%s with organization default %s reads the %s catalog, dates in %s', (requested, organization, catalog, dates) => {
    expect(readerLocale(requested, organization)).toEqual({ catalog, dates });
  });
});
