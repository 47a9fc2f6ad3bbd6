import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GuardedHttp, ResponseTooLargeError } from './guarded-http.js';

describe('GuardedHttp', () => {
  let server: Server;
  let port: number;
  const hosts: string[] = [];
  const http = new GuardedHttp(true);

  beforeAll(async () => {
    server = createServer((req, res) => {
      hosts.push(req.headers.host ?? '');
      res.writeHead(200, { 'content-type': 'text/plain' }).end(req.url === '/big' ? Buffer.alloc(4096, 'x') : `${req.method} ok`);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    http.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const options = (extra: Partial<Parameters<GuardedHttp['request']>[2]> = {}) => ({
    method: 'GET',
    headers: {},
    signal: AbortSignal.timeout(5000),
    maxBytes: 1024,
    ...extra,
  });

  it('connects to the checked address, never asking DNS about the host (a name that resolves nowhere)', async () => {
    const url = new URL(`http://calendar.invalid:${port}/dav/`);
    const res = await http.request(url, [{ address: '127.0.0.1', family: 4 }], options({ method: 'REPORT', body: '<x/>' }));
    expect([res.status, res.body.toString()]).toEqual([200, 'REPORT ok']);
    expect(hosts.at(-1)).toBe(`calendar.invalid:${port}`);
  });

  it('cuts a body past maxBytes', async () => {
    await expect(http.request(new URL(`http://127.0.0.1:${port}/big`), null, options())).rejects.toBeInstanceOf(ResponseTooLargeError);
  });
});
