import type { LookupAddress } from 'node:dns';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pinnedLookup } from '@app/common';
import { WebhookHttpClient } from './webhook-http.js';

type Answer = { error: NodeJS.ErrnoException | null; address: string | LookupAddress[]; family?: number };

function ask(addresses: LookupAddress[], options: { family?: number; all?: boolean }): Answer {
  let answer: Answer | undefined;
  pinnedLookup(addresses)('anything.example.com', options, (error, address, family) => (answer = { error, address, family }));
  return answer!;
}

describe('pinnedLookup', () => {
  const checked: LookupAddress[] = [
    { address: '93.184.216.34', family: 4 },
    { address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 },
  ];

  it('answers only with the checked addresses, whatever the host name', () => {
    expect(ask(checked, {})).toEqual({ error: null, address: '93.184.216.34', family: 4 });
    expect(ask(checked, { all: true })).toEqual({ error: null, address: checked, family: undefined });
    expect(ask(checked, { family: 6 })).toEqual({ error: null, address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 });
    expect(ask(checked, { family: 4, all: true }).address).toEqual([checked[0]]);
  });

  it('fails rather than fall back to DNS when no checked address fits', () => {
    expect(ask([checked[0]], { family: 6 }).error?.code).toBe('ENOTFOUND');
  });
});

describe('WebhookHttpClient', () => {
  let server: Server;
  let port: number;
  let requests = 0;

  beforeAll(async () => {
    server = createServer((req, res) => {
      requests += 1;
      if (req.url === '/redirect') res.writeHead(307, { location: '/ok' }).end();
      else if (req.url === '/retry-later') res.writeHead(503, { 'retry-after': '120' }).end();
      else res.writeHead(204).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  const post = (client: WebhookHttpClient, path: string) =>
    client.post({
      url: `http://127.0.0.1:${port}${path}`,
      body: '{}',
      headers: {},
      timeoutMs: 2000,
      interrupt: new AbortController().signal,
    });

  it('reports the status without following redirects, and passes Retry-After on', async () => {
    const client = new WebhookHttpClient(true);
    const before = requests;
    expect(await post(client, '/ok')).toMatchObject({ status: 204, error: null, interrupted: false });
    expect(await post(client, '/redirect')).toMatchObject({ status: 307, error: 'HTTP 307' });
    expect(await post(client, '/retry-later')).toMatchObject({ status: 503, retryAfter: '120' });
    expect(requests - before).toBe(3);
    client.close();
  });

  it('refuses private targets before connecting when they are not allowed', async () => {
    const client = new WebhookHttpClient(false, async () => [{ address: '127.0.0.1', family: 4 }]);
    const before = requests;
    const result = await post(client, '/ok');
    expect(result).toMatchObject({ status: null, error: 'refused: plain http is not allowed' });
    const named = await client.post({
      url: `https://receiver.test:${port}/ok`,
      body: '{}',
      headers: {},
      timeoutMs: 2000,
      interrupt: new AbortController().signal,
    });
    expect(named).toMatchObject({ status: null, error: 'refused: host resolves to a loopback address' });
    expect(requests).toBe(before);
    client.close();
  });

  it('stops an attempt when interrupted', async () => {
    const client = new WebhookHttpClient(true);
    const interrupt = new AbortController();
    interrupt.abort();
    const result = await client.post({
      url: `http://127.0.0.1:${port}/ok`,
      body: '{}',
      headers: {},
      timeoutMs: 2000,
      interrupt: interrupt.signal,
    });
    expect(result).toMatchObject({ status: null, error: 'Interrupted by shutdown', interrupted: true });
    client.close();
  });
});
