import { parseAuthorization } from './credentials.js';

describe('parseAuthorization', () => {
  it.each([
    [undefined, { kind: 'none' }],
    ['', { kind: 'none' }],
    ['ApiKey mk_live_abc', { kind: 'api_key', value: 'mk_live_abc' }],
    ['apikey mk_test_abc', { kind: 'api_key', value: 'mk_test_abc' }],
    ['Bearer mk_live_abc', { kind: 'api_key', value: 'mk_live_abc' }],
    ['Bearer eyJ.a.b', { kind: 'jwt', value: 'eyJ.a.b' }],
    ['ApiKey', { kind: 'malformed' }],
    ['Bearer', { kind: 'malformed' }],
    ['Bearer  x', { kind: 'malformed' }],
    ['Bearer x y', { kind: 'malformed' }],
    ['Basic dXNlcg==', { kind: 'malformed' }],
    [`Bearer ${'a'.repeat(5000)}`, { kind: 'malformed' }],
    [['Bearer a', 'Bearer b'], { kind: 'malformed' }],
  ])('%j → %j', (header, expected) => {
    expect(parseAuthorization(header as string | string[] | undefined)).toEqual(expected);
  });
});
