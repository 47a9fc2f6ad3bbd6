import type { LookupAddress } from 'node:dns';
import { addressRange, checkWebhookUrl, isPublicAddress, NOT_PUBLIC_MESSAGE, UnsafeUrlError, webhookUrlProblem } from './url-guard.js';

/** A resolver that answers from a table and never touches the network. */
function fakeDns(table: Record<string, string[]>) {
  return async (host: string): Promise<LookupAddress[]> => {
    const answers = table[host];
    if (!answers) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return answers.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
}

const dns = fakeDns({
  'hooks.example.com': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
  'rebind.example.com': ['93.184.216.34', '10.0.0.7'],
  'mapped.example.com': ['::ffff:169.254.169.254'],
  'mapped-public.example.com': ['::ffff:93.184.216.34'],
  'nothing.example.com': [],
});

async function refusal(url: string): Promise<string> {
  const error: unknown = await checkWebhookUrl(url, { allowPrivate: false, resolve: dns }).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof UnsafeUrlError)) throw new Error(`${url} was not refused`);
  return error.detail;
}

describe('webhook URL guard', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.5.4', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'linkLocal'],
    ['fd00::1', 'uniqueLocal'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:10.1.2.3', 'private'],
    ['64:ff9b::a00:1', 'rfc6052'],
    ['2002:a00:1::', '6to4'],
  ])('refuses %s (%s)', (address, range) => {
    expect(addressRange(address)).toBe(range);
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(['93.184.216.34', '8.8.8.8', '2606:2800:220:1:248:1893:25c8:1946', '::ffff:8.8.8.8'])('accepts public %s', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });

  it('checks syntax before anything else', () => {
    expect(webhookUrlProblem('not a url')).toMatch(/absolute http or https URL/);
    expect(webhookUrlProblem('ftp://example.com/x')).toMatch(/http or https/);
    expect(webhookUrlProblem('https://user:pass@example.com/x')).toMatch(/credentials/);
    expect(webhookUrlProblem(`https://example.com/${'a'.repeat(2048)}`)).toMatch(/at most 2048/);
    expect(webhookUrlProblem(42)).not.toBeNull();
    expect(webhookUrlProblem('https://example.com/hooks?x=1')).toBeNull();
  });

  it('refuses plain http, private literals in any spelling, and hosts with any private record', async () => {
    expect(await refusal('http://hooks.example.com/x')).toMatch(/http is not allowed/);
    expect(await refusal('https://127.0.0.1/x')).toMatch(/loopback/);
    expect(await refusal('https://2130706433/x')).toMatch(/loopback/);
    expect(await refusal('https://0x7f.1/x')).toMatch(/loopback/);
    expect(await refusal('https://[::1]/x')).toMatch(/loopback/);
    expect(await refusal('https://[::ffff:127.0.0.1]/x')).toMatch(/loopback/);
    expect(await refusal('https://169.254.169.254/latest/meta-data')).toMatch(/linkLocal/);
    expect(await refusal('https://rebind.example.com/x')).toMatch(/private/);
    expect(await refusal('https://mapped.example.com/x')).toMatch(/linkLocal/);
    expect(await refusal('https://nothing.example.com/x')).toMatch(/no addresses/);
    expect(await refusal('https://unknown.example.com/x')).toMatch(/did not resolve \(ENOTFOUND\)/);
  });

  it('tells the API caller the same thing for private and unresolvable hosts', async () => {
    for (const url of ['https://rebind.example.com/x', 'https://unknown.example.com/x']) {
      await expect(checkWebhookUrl(url, { allowPrivate: false, resolve: dns })).rejects.toThrow(NOT_PUBLIC_MESSAGE);
    }
  });

  it('returns every checked address, IPv4-mapped ones unwrapped, for the connection to use', async () => {
    const target = await checkWebhookUrl('https://hooks.example.com/x', { allowPrivate: false, resolve: dns });
    expect(target.addresses).toEqual([
      { address: '93.184.216.34', family: 4 },
      { address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 },
    ]);
    const mapped = await checkWebhookUrl('https://mapped-public.example.com/x', { allowPrivate: false, resolve: dns });
    expect(mapped.addresses).toEqual([{ address: '93.184.216.34', family: 4 }]);
  });

  it('allows http and private targets when told to, without resolving', async () => {
    const asked: string[] = [];
    const resolve = (host: string) => {
      asked.push(host);
      return dns(host);
    };
    const target = await checkWebhookUrl('http://localhost:8080/x', { allowPrivate: true, resolve });
    expect(target.addresses).toBeNull();
    expect(asked).toEqual([]);
    await expect(checkWebhookUrl('ftp://localhost/x', { allowPrivate: true, resolve })).rejects.toBeInstanceOf(UnsafeUrlError);
  });
});
