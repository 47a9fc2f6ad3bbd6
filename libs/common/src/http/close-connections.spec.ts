import { Agent, request } from 'node:http';
import fastifyCompress from '@fastify/compress';
import Fastify, { type FastifyInstance } from 'fastify';
import { closeConnectionsOnClose } from './close-connections.js';

/** A server with one route whose answer waits until the test lets it go; Fastify's own keep-alive timeout (72 s). */
async function serverWithHeldAnswer(graceMs?: number): Promise<{
  app: FastifyInstance;
  url: string;
  entered: Promise<void>;
  release: () => void;
  cut: number[];
}> {
  const app = Fastify();
  const cut: number[] = [];
  closeConnectionsOnClose(app, (connections) => cut.push(connections), graceMs);
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let entered!: () => void;
  const enteredPromise = new Promise<void>((resolve) => (entered = resolve));
  app.get('/held', async () => {
    entered();
    await released;
    return { answer: 'x'.repeat(10_000) };
  });
  app.get('/quick', async () => ({ ok: true }));
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, url, entered: enteredPromise, release, cut };
}

function get(url: string, agent: Agent): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

const within = <T>(promise: Promise<T>, ms: number): Promise<T | 'still waiting'> =>
  Promise.race([promise, new Promise<'still waiting'>((resolve) => setTimeout(() => resolve('still waiting'), ms).unref())]);

describe('closeConnectionsOnClose: a closing server ends its keep-alive connections once their answers are sent', () => {
  it('a compressed answer still being written at the close (its client not reading yet): the server closes once it is sent, not after 72 s', async () => {
    // Seen with the console's script: SIGTERM right after its headers kept the process alive for Fastify's keep-alive
    // timeout, the connection not idle when the server closed and never looked at again.
    const app = Fastify();
    closeConnectionsOnClose(app, () => undefined);
    await app.register(fastifyCompress, { encodings: ['gzip'], threshold: 1024 });
    const script = Array.from({ length: 10_000 }, (_, i) => String(i).padStart(10, '-')).join('');
    app.get('/script.js', async (_request, reply) => reply.type('application/javascript').send(script));
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    const answer = await fetch(`${url}/script.js`, { headers: { 'accept-encoding': 'gzip' } });
    expect(answer.headers.get('content-encoding')).toBe('gzip');
    expect(
      await within(
        app.close().then(() => 'closed'),
        2000,
      ),
    ).toBe('closed');
    await answer.body?.cancel();
  });

  it('an answer under way at the close goes out whole, then its connection closes and so does the server', async () => {
    const { app, url, entered, release, cut } = await serverWithHeldAnswer();
    const agent = new Agent({ keepAlive: true });
    expect((await get(`${url}/quick`, agent)).status).toBe(200); // an idle keep-alive connection
    const answer = get(`${url}/held`, agent); // a second one, its answer under way
    await entered;
    const closed = app.close();
    release();
    const received = await answer;
    expect(received.status).toBe(200);
    expect(received.body).toHaveLength(JSON.stringify({ answer: 'x'.repeat(10_000) }).length);
    expect(
      await within(
        closed.then(() => 'closed'),
        2000,
      ),
    ).toBe('closed');
    expect(cut).toEqual([]);
    agent.destroy();
  });

  it('an answer still under way after the grace period has its connection cut, and the server closes', async () => {
    const { app, url, entered, release, cut } = await serverWithHeldAnswer(300);
    const agent = new Agent({ keepAlive: true });
    const answer = get(`${url}/held`, agent).catch((error: NodeJS.ErrnoException) => error.code);
    await entered;
    const started = Date.now();
    expect(
      await within(
        app.close().then(() => 'closed'),
        2000,
      ),
    ).toBe('closed');
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(cut).toEqual([1]);
    expect(await answer).toBe('ECONNRESET');
    release();
    agent.destroy();
  });

  it('a server that never listened closes at once', async () => {
    const app = Fastify();
    closeConnectionsOnClose(app, () => undefined);
    await app.ready();
    expect(
      await within(
        app.close().then(() => 'closed'),
        1000,
      ),
    ).toBe('closed');
  });
});
