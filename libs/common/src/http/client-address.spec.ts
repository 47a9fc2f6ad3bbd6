import { clientAddressOf } from './client-address.js';

describe('clientAddressOf: what per-client rules count by', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['127.0.0.1', '127.0.0.1'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:db8:1:2:ffff:ffff:ffff:ffff', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002::1', '2001:db8:1:2::/64'],
    ['2001:db8:1:3::1', '2001:db8:1:3::/64'],
    ['::1', '::/64'],
    ['fe80::1%eth0', 'fe80::/64'],
    [undefined, 'unknown'],
    ['', 'unknown'],
    ['not-an-address', 'not-an-address'],
  ])('%s counts as %s', (ip, expected) => {
    expect(clientAddressOf(ip)).toBe(expected);
  });
});
