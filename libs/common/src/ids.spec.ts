import fc from 'fast-check';
import { ID_PREFIXES, looksLikeId, newId, randomBase62 } from './ids.js';

describe('ids', () => {
  it('are the prefix, an underscore and 24 random base62 characters', () => {
    for (const prefix of ID_PREFIXES) expect(newId(prefix)).toMatch(new RegExp(`^${prefix}_[0-9A-Za-z]{24}$`));
  });

  it('do not repeat and are not sequential', () => {
    const ids = Array.from({ length: 5000 }, () => newId('bkg'));
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).not.toEqual(ids);
  });

  it('randomBase62 returns exactly the asked length from the alphabet', () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 200 }), (n) => /^[0-9A-Za-z]+$/.test(randomBase62(n)) && randomBase62(n).length === n));
  });

  it('looksLikeId checks prefix and alphabet', () => {
    expect(looksLikeId(newId('evt'), 'evt')).toBe(true);
    expect(looksLikeId(newId('evt'), 'bkg')).toBe(false);
    expect(looksLikeId("evt_'; drop table x; --", 'evt')).toBe(false);
  });
});
