import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { readFileSync } from 'node:fs';
import { startTestApp, type TestApp } from './support/app.js';
import { DEPLOYED_HAPROXY_CONFIG, HaproxyServer } from './support/haproxy.js';

/** A short REQUEST_TIMEOUT_MS, so the test waits about a second; Node checks for it every quarter of it. */
const REQUEST_TIMEOUT_MS = 1000;
/** The default MAX_CONNECTIONS_PER_CLIENT. */
const MAX_CONNECTIONS = 100;
/** Two clients on loopback, each from an address of its own (Linux answers all of 127.0.0.0/8). */
const STALLER = '127.0.0.2';
const VISITOR = '127.0.0.3';

/** A connection from `localAddress` as the raw bytes it receives, when it was opened, and its close. */
interface RawConnection {
  socket: Socket;
  /** When the first byte of the request was written (or the connection opened, when nothing is). */
  startedAt: number;
  received: () => string;
  closed: Promise<{ at: number; text: string }>;
}

function openConnection(port: number, localAddress: string, firstBytes?: string, allowHalfOpen = false): Promise<RawConnection> {
  return new Promise((resolve, reject) => {
    let text = '';
    const socket = connect({ host: '127.0.0.1', port, localAddress, allowHalfOpen });
    const closed = new Promise<{ at: number; text: string }>((done) => socket.once('close', () => done({ at: Date.now(), text })));
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.once('error', () => undefined);
    socket.once('connect', () => {
      if (firstBytes !== undefined) socket.write(firstBytes, 'latin1');
      resolve({ socket, startedAt: Date.now(), received: () => text, closed });
    });
    socket.once('close', () => reject(new Error('closed before it connected')));
  });
}

/** A request's headers and 10 of its 200 body bytes, then nothing: a body that never finishes arriving. */
const STALLED_BODY = 'POST /v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{"email":"';
/** Half of a request's headers, then nothing. */
const STALLED_HEADERS = 'GET /health HTTP/1.1\r\nHost: x\r\nUser-Agent: slo';

/** GET /health from a chosen local address, with a fresh connection: its status and how long the answer took. */
function healthFrom(port: number, localAddress: string): Promise<{ status: number; ms: number }> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, localAddress, agent: false, path: '/health' }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: Date.now() - started }));
    });
    req.on('error', reject);
    req.end();
  });
}

function parseAnswer(text: string): { status: number; headers: Map<string, string>; body: unknown } {
  const [head, body] = text.split('\r\n\r\n', 2);
  const [statusLine, ...lines] = head.split('\r\n');
  const headers = new Map(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
  return { status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(body) };
}

async function openConnectionsOf(t: TestApp): Promise<number> {
  return new Promise((resolve) => t.app.getHttpServer().getConnections((_error, count) => resolve(count)));
}

async function until(condition: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Slow clients (contract § 19): REQUEST_TIMEOUT_MS and MAX_CONNECTIONS_PER_CLIENT, through the real app on a socket. */
describe('slow and stalled clients', () => {
  let t: TestApp;
  let port: number;

  beforeAll(async () => {
    t = await startTestApp({ env: { REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS) } });
    port = Number(new URL(t.url).port);
  });
  afterAll(async () => {
    await t.close();
  });

  it('stalled bodies and headers from one address get 408 REQUEST_TIMEOUT after REQUEST_TIMEOUT_MS while another address is served at once', async () => {
    const stalled = await Promise.all(
      Array.from({ length: 60 }, (_, i) => openConnection(port, STALLER, i % 2 === 0 ? STALLED_BODY : STALLED_HEADERS)),
    );
    await until(async () => (await openConnectionsOf(t)) >= stalled.length, 5_000, 'the stalled connections to be accepted');

    // Another client is served at once, on fresh connections, while they stall.
    for (let i = 0; i < 5; i++) {
      const served = await healthFrom(port, VISITOR);
      expect(served.status).toBe(200);
      expect(served.ms).toBeLessThan(REQUEST_TIMEOUT_MS / 2);
    }
    expect(stalled.every((connection) => connection.received() === '')).toBe(true);

    const ends = await Promise.all(stalled.map((connection) => connection.closed));
    for (const [i, end] of ends.entries()) {
      const waited = end.at - stalled[i].startedAt;
      // Node checks every REQUEST_TIMEOUT_MS / 4: due after the timeout, answered within a check and some slack.
      expect(waited).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 50);
      expect(waited).toBeLessThan(REQUEST_TIMEOUT_MS * 2 + 500);
      const { status, headers, body } = parseAnswer(end.text);
      expect(status).toBe(408);
      expect(headers.get('content-type')).toMatch(/^application\/json/);
      expect(headers.get('connection')).toBe('close');
      expect(body).toEqual({ code: 'REQUEST_TIMEOUT', message: expect.any(String), requestId: headers.get('x-request-id') });
    }
    // Their address is served again once they are gone.
    await until(async () => (await openConnectionsOf(t)) === 0, 5_000, 'the server to close them');
    expect((await healthFrom(port, STALLER)).status).toBe(200);
  });

  it('a connection that sends nothing is closed too, and a request that arrives whole in time is not cut by the timeout', async () => {
    const silent = await openConnection(port, STALLER);
    const slowButInTime = await openConnection(port, STALLER, STALLED_BODY);
    await new Promise((resolve) => setTimeout(resolve, REQUEST_TIMEOUT_MS / 4));
    // The 190 bytes left of the 200 announced; the JSON ends in blanks.
    slowButInTime.socket.write('ada@example.com","password":"wrong"}'.padEnd(190, ' '), 'latin1');
    const [silentEnd, slowAnswer] = await Promise.all([
      silent.closed,
      new Promise<string>((resolve) => {
        const poll = setInterval(() => {
          if (slowButInTime.received().includes('\r\n\r\n')) {
            clearInterval(poll);
            resolve(slowButInTime.received());
          }
        }, 10);
      }),
    ]);
    expect(silentEnd.at - silent.startedAt).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 50);
    expect(parseAnswer(silentEnd.text).status).toBe(408);
    expect(parseAnswer(slowAnswer).status).toBe(401);
    slowButInTime.socket.destroy();
    await slowButInTime.closed;
  });

  it('a client that never closes its side of the connection does not keep it after its 408', async () => {
    await until(async () => (await openConnectionsOf(t)) === 0, 5_000, 'the earlier connections to close');
    const halfOpen = await Promise.all(Array.from({ length: 5 }, () => openConnection(port, STALLER, STALLED_BODY, true)));
    const ended = halfOpen.map(
      (connection) => new Promise<string>((resolve) => connection.socket.once('end', () => resolve(connection.received()))),
    );
    for (const text of await Promise.all(ended)) expect(parseAnswer(text).status).toBe(408);
    // The clients keep their side open; the server has let go of every socket all the same.
    await until(async () => (await openConnectionsOf(t)) === 0, REQUEST_TIMEOUT_MS, 'the server to let go of the half-open sockets');
    for (const connection of halfOpen) connection.socket.destroy();
  });

  it(`closes the ${MAX_CONNECTIONS + 1}st connection of one address at once while another address is served`, async () => {
    await until(async () => (await openConnectionsOf(t)) === 0, 5_000, 'the earlier connections to close');
    const held = await Promise.all(Array.from({ length: MAX_CONNECTIONS }, () => openConnection(port, STALLER, STALLED_HEADERS)));
    await until(async () => (await openConnectionsOf(t)) >= MAX_CONNECTIONS, 5_000, 'the held connections to be accepted');

    const refusedAt = Date.now();
    const refused = await openConnection(port, STALLER, STALLED_BODY).catch(() => undefined);
    if (refused) {
      // Accepted by the kernel, then closed by the server before it read a byte: no answer, long before the timeout.
      const end = await refused.closed;
      expect(end.text).toBe('');
      expect(end.at - refusedAt).toBeLessThan(REQUEST_TIMEOUT_MS / 2);
    }
    const served = await healthFrom(port, VISITOR);
    expect(served.status).toBe(200);
    expect(served.ms).toBeLessThan(REQUEST_TIMEOUT_MS / 2);

    // The held ones time out like any stalled request, and free their address's places.
    await Promise.all(held.map((connection) => connection.closed));
    await until(async () => (await openConnectionsOf(t)) === 0, 5_000, 'the server to close them');
    expect((await healthFrom(port, STALLER)).status).toBe(200);
  });

  it('behind the deployed HAProxy a stalled body never reaches an instance: the proxy answers 408 with the contract body', async () => {
    await until(async () => (await openConnectionsOf(t)) === 0, 5_000, 'the earlier connections to close');
    const proxy = await HaproxyServer.start([`127.0.0.1:${port}`], { httpRequestTimeout: '1s' });
    try {
      const stalled = await Promise.all(Array.from({ length: 20 }, () => openConnection(proxy.port, STALLER, STALLED_BODY)));
      // HAProxy keeps them: none is sent on to the instance (its health checks come and go on their own connections).
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await openConnectionsOf(t)).toBeLessThanOrEqual(1);
      for (const end of await Promise.all(stalled.map((connection) => connection.closed))) {
        const { status, headers, body } = parseAnswer(end.text);
        expect(status).toBe(408);
        expect(headers.get('content-type')).toBe('application/json');
        expect(body).toEqual({ code: 'REQUEST_TIMEOUT', message: expect.any(String), requestId: headers.get('x-request-id') });
      }
    } finally {
      await proxy.stop();
    }
  });

  it('the deployed HAProxy opens fewer connections to an instance than MAX_CONNECTIONS_PER_CLIENT: requests past it wait there', () => {
    const maxconn = /^\s*default-server\b.*\bmaxconn (\d+)/m.exec(readFileSync(DEPLOYED_HAPROXY_CONFIG, 'utf8'));
    expect(maxconn).not.toBeNull();
    // Health checks use connections of their own from the same address.
    expect(Number(maxconn![1])).toBeLessThan(MAX_CONNECTIONS - 5);
  });
});
