import { companionOf, type KeyCompanion, KeyCompanions } from './key-companions.js';

const byId: KeyCompanion<string> = {
  params: (request) => {
    const id = (request.query as { id?: unknown } | undefined)?.id;
    return typeof id === 'string' ? [id] : null;
  },
  columns: (key, [id]) => `(SELECT ${key.organization} || ${id}) AS c_value`,
  parse: (row) => String(row.c_value),
};

describe('KeyCompanions: which read rides with the key’s lookup', () => {
  const companions = new KeyCompanions();
  companions.register('by-id', byId);

  it.each<[string, string | undefined, unknown, string[] | null]>([
    ['the route names a registered read', 'by-id', { id: 'a' }, ['a']],
    ['the route names none', undefined, { id: 'a' }, null],
    ['the read cannot take this request', 'by-id', { id: ['a', 'b'] }, null],
    ['the request has no query', 'by-id', undefined, null],
  ])('%s', (_label, name, query, params) => {
    const composed = companions.compose(name, { query });
    expect(composed && { name: composed.name, params: composed.params }).toEqual(params && { name: 'by-id', params });
  });

  it('refuses a name nothing registered: a route wired to a read that does not exist', () => {
    expect(() => companions.compose('other', { query: { id: 'a' } })).toThrow(/No key companion is registered as other/);
  });

  it('refuses a second read under a taken name', () => {
    expect(() => companions.register('by-id', byId)).toThrow(/already registered/);
  });
});

describe('companionOf: a read is used only for the request it was composed for', () => {
  const request = { keyCompanion: { name: 'by-id', params: ['a', 'b'], value: 42 } };

  it.each<[string, object, string, string[], number | undefined]>([
    ['same name and parameters', request, 'by-id', ['a', 'b'], 42],
    ['none was composed', {}, 'by-id', ['a', 'b'], undefined],
    ['another read', request, 'other', ['a', 'b'], undefined],
    ['other parameters', request, 'by-id', ['a', 'c'], undefined],
    ['fewer parameters', request, 'by-id', ['a'], undefined],
    ['more parameters', request, 'by-id', ['a', 'b', 'c'], undefined],
  ])('%s', (_label, on, name, params, value) => {
    expect(companionOf<number>(on, name, params)).toBe(value);
  });
});
