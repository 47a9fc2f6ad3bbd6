import { connect } from 'node:net';
import { startTestApp, type TestApp } from './support/app.js';

interface Outcome {
  status: number | null;
  body: string;
  error?: string;
}

/**
 * Sends a body of `size` bytes with a correct Content-Length over a raw socket, `chunk` bytes at a time with `delayMs`
 * between chunks, as a client that sends its whole request before it looks at the answer: it keeps writing after the
 * answer arrived, so a server that closed early makes it fail (EPIPE, ECONNRESET) instead of reading. The answer as
 * far as it arrived, and the first socket error.
 */
function sendBody(port: number, size: number, chunk: number, delayMs: number, endBody = true): Promise<Outcome> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    let settled = false;
    let sent = 0;
    let answered = false;
    const settle = (error?: string): void => {
      if (settled) return;
      settled = true;
      const [head, body = ''] = received.split('\r\n\r\n');
      const status = /^HTTP\/1\.1 (\d{3})/.exec(head ?? '')?.[1];
      socket.destroy();
      resolve({ status: status ? Number(status) : null, body, ...(error ? { error } : {}) });
    };
    socket.on('data', (data: Buffer) => {
      received += data.toString('latin1');
      const [head, body] = received.split('\r\n\r\n');
      const length = /content-length: (\d+)/i.exec(head ?? '')?.[1];
      if (body !== undefined && length !== undefined && Buffer.byteLength(body, 'latin1') >= Number(length)) {
        answered = true;
        if (sent >= size) settle();
      }
    });
    socket.on('error', (error: NodeJS.ErrnoException) => settle(error.code ?? error.message));
    socket.on('close', () => settle('closed'));
    socket.write(`POST /v1/auth/login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${size}\r\n\r\n`);
    const piece = Buffer.alloc(chunk, 0x20);
    const pump = (): void => {
      while (!settled && sent < size) {
        const bytes = Math.min(chunk, size - sent);
        sent += bytes;
        const more = socket.write(bytes === chunk ? piece : piece.subarray(0, bytes));
        if (delayMs > 0) {
          setTimeout(pump, delayMs);
          return;
        }
        if (!more) {
          socket.once('drain', pump);
          return;
        }
      }
      if (!endBody) return;
      if (sent >= size && answered) settle();
    };
    socket.on('connect', pump);
  });
}

describe('413 PAYLOAD_TOO_LARGE always arrives (issue 29)', () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await startTestApp();
    port = Number(new URL(t.url).port);
  });
  afterAll(async () => {
    await t.close();
  });

  const expectTooLarge = (outcome: Outcome): void => {
    expect({ status: outcome.status, error: outcome.error }).toEqual({ status: 413, error: undefined });
    expect(JSON.parse(outcome.body)).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', requestId: expect.any(String) });
  };

  it.each([
    ['2 MiB, sent at once', 2 << 20, 256 << 10, 0],
    ['20 MiB, sent at once', 20 << 20, 1 << 20, 0],
    ['2 MiB, sent slowly', 2 << 20, 64 << 10, 5],
  ])('%s: 20 times, the client reads the 413 and its body every time', async (_name, size, chunk, delayMs) => {
    for (let i = 0; i < 20; i++) expectTooLarge(await sendBody(port, size, chunk, delayMs));
  });

  it('20 MiB sent slowly: the 413 arrives, and the body is cut off after the bound', async () => {
    const started = Date.now();
    const outcome = await sendBody(port, 20 << 20, 64 << 10, 2);
    expectTooLarge(outcome);
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('a body that never ends is cut off after the bound in time', async () => {
    const started = Date.now();
    const outcome = await new Promise<Outcome>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      let received = '';
      socket.on('data', (data: Buffer) => (received += data.toString('latin1')));
      const trickle = setInterval(() => socket.write(Buffer.alloc(1024, 0x20)), 20);
      socket.on('close', () => {
        clearInterval(trickle);
        const status = /^HTTP\/1\.1 (\d{3})/.exec(received)?.[1];
        resolve({ status: status ? Number(status) : null, body: received.split('\r\n\r\n')[1] ?? '' });
      });
      socket.on('error', () => undefined);
      socket.write(
        `POST /v1/auth/login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${1 << 30}\r\n\r\n`,
      );
    });
    expect(outcome.status).toBe(413);
    const elapsed = Date.now() - started;
    // DRAIN_MAX_MS (5 s): never longer, so a body that never ends cannot hold the connection.
    expect(elapsed).toBeGreaterThanOrEqual(4500);
    expect(elapsed).toBeLessThan(9000);
  });
});
