import { IcsFetcher, type IcsResponse, type IcsTransport, SourceError } from './ics-source.js';

/**
 * The redirect rules with CALENDAR_ALLOW_PRIVATE_URLS=false. Nothing may leave the machine, so the first,
 * public hop is answered by a recording transport; every hop still passes the real URL guard first.
 */
function recording(answer: (url: URL) => IcsResponse): { transport: IcsTransport; hops: { url: string; addresses: unknown }[] } {
  const hops: { url: string; addresses: unknown }[] = [];
  const transport: IcsTransport = async (url, addresses) => {
    hops.push({ url: url.toString(), addresses });
    return answer(url);
  };
  return { transport, hops };
}

const redirect = (location: string): IcsResponse => ({ status: 302, body: '', location, etag: null, lastModified: null });
const calendar: IcsResponse = { status: 200, body: 'BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n', etag: '"1"', lastModified: null };

describe('IcsFetcher redirects with private addresses refused', () => {
  it.each([
    'http://127.0.0.1:8080/feed.ics',
    'https://127.0.0.1/feed.ics',
    'https://localhost/feed.ics',
    'https://169.254.169.254/latest/meta-data/',
    'https://10.0.0.5/feed.ics',
    'https://[::1]/feed.ics',
    'https://[::ffff:192.168.0.1]/feed.ics',
    'https://2130706433/feed.ics',
  ])('refuses a redirect to %s without asking it', async (location) => {
    const { transport, hops } = recording((url) => (url.hostname === '93.184.216.34' ? redirect(location) : calendar));
    const fetcher = new IcsFetcher(false, 2000, transport);
    const error = await fetcher.fetch('https://93.184.216.34/feed.ics', null).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SourceError);
    expect((error as SourceError).field).toBe('url');
    expect((error as SourceError).message).toMatch(/^a redirect was refused: /);
    expect(hops.map((hop) => hop.url)).toEqual(['https://93.184.216.34/feed.ics']);
    fetcher.close();
  });

  it('follows a redirect to another public address, each hop pinned to the address checked', async () => {
    const { transport, hops } = recording((url) =>
      url.hostname === '93.184.216.34' ? redirect('https://93.184.216.35/moved.ics') : calendar,
    );
    const fetcher = new IcsFetcher(false, 2000, transport);
    const result = await fetcher.fetch('https://93.184.216.34/feed.ics', null);
    expect(result).toMatchObject({ notModified: false, validators: { etag: '"1"' } });
    expect(hops).toEqual([
      { url: 'https://93.184.216.34/feed.ics', addresses: [{ address: '93.184.216.34', family: 4 }] },
      { url: 'https://93.184.216.35/moved.ics', addresses: [{ address: '93.184.216.35', family: 4 }] },
    ]);
    fetcher.close();
  });

  it('refuses a private first hop and plain http before any request', async () => {
    const { transport, hops } = recording(() => calendar);
    const fetcher = new IcsFetcher(false, 2000, transport);
    for (const url of ['https://192.168.1.10/feed.ics', 'http://93.184.216.34/feed.ics']) {
      await expect(fetcher.fetch(url, null)).rejects.toBeInstanceOf(SourceError);
    }
    expect(hops).toEqual([]);
    fetcher.close();
  });
});
