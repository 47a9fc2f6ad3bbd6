import pg from 'pg';

/** What node-postgres says when `query_timeout` gives up on a statement (it sets no code). */
export const CLIENT_TIMEOUT_MESSAGE = 'Query read timeout';

/** The parts of a pooled pg client this module reads (pg keeps them on the instance). */
interface PooledClient {
  query: (...args: unknown[]) => unknown;
  processID?: number | null;
  secretKey?: number | null;
  host?: string;
  port?: number;
  connection?: { stream?: { destroy(): void } };
}

/** pg's wire connection, as its own `Client.cancel` uses it. */
interface CancelConnection {
  stream: { destroy(): void };
  on(event: 'error', listener: () => void): unknown;
  once(event: 'connect' | 'end', listener: () => void): unknown;
  connect(port: number | string, host?: string): void;
  cancel(processID: number, secretKey: number): void;
}

interface Emitter {
  on(event: string, listener: (client: PooledClient) => void): unknown;
}

export function isClientTimeout(error: unknown): boolean {
  return error instanceof Error && error.message === CLIENT_TIMEOUT_MESSAGE && !('code' in error);
}

/** How long a cancel request may take before its socket is dropped (the server answers by closing it). */
const CANCEL_WAIT_MS = 10_000;

/**
 * Asks the server to cancel what the connection runs (a CancelRequest on a socket of its own, as pg's `Client.cancel`:
 * no authentication, no pooled connection needed), so the statement the client gave up on stops holding its locks.
 */
function cancelOnServer(client: PooledClient): void {
  const { processID, secretKey, host, port } = client;
  if (typeof processID !== 'number' || typeof secretKey !== 'number' || port === undefined) return;
  const connection = new pg.Connection() as unknown as CancelConnection;
  connection.on('error', () => undefined);
  const timer = setTimeout(() => connection.stream.destroy(), CANCEL_WAIT_MS);
  timer.unref();
  connection.once('connect', () => connection.cancel(processID, secretKey));
  connection.once('end', () => clearTimeout(timer));
  if (host?.startsWith('/')) connection.connect(`${host}/.s.PGSQL.${port}`);
  else connection.connect(port, host);
}

/**
 * A statement the client gave up on (`query_timeout`: the server did not answer in time) may still run on the server,
 * and pg keeps the connection: every later statement on it queues behind the dead one, and TypeORM hands it back to the
 * pool as healthy. So on a client timeout the connection is cancelled on the server and its socket destroyed at once:
 * what waits on it fails now ("Connection terminated", a 503), and the pool discards it when it comes back.
 */
function destroyOnTimeout(client: PooledClient): void {
  let destroyed = false;
  const destroy = (error: unknown): void => {
    if (destroyed || !isClientTimeout(error)) return;
    destroyed = true;
    cancelOnServer(client);
    client.connection?.stream?.destroy();
  };
  // The class's query, looked up at each call rather than kept: what instruments the class (a round-trip count, a
  // tracer patching pg.Client.prototype) after this connection opened still sees every statement.
  const query = (): PooledClient['query'] => (Object.getPrototypeOf(client) as PooledClient).query;
  client.query = function (this: PooledClient, ...args: unknown[]): unknown {
    const last = args.length > 0 ? args[args.length - 1] : undefined;
    if (typeof last === 'function') {
      const callback = last as (error: unknown, result: unknown) => void;
      args[args.length - 1] = (error: unknown, result: unknown): void => {
        destroy(error);
        callback(error, result);
      };
    }
    const result = query().apply(this, args);
    if (result instanceof Promise) result.catch(destroy);
    return result;
  };
}

/** Installs destroyOnTimeout on every connection of a pg pool (TypeORM's `driver.master`), once each. */
const watched = new WeakSet<object>();
export function destroyConnectionsOnClientTimeout(pool: Emitter | undefined): void {
  if (!pool || typeof pool.on !== 'function' || watched.has(pool)) return;
  watched.add(pool);
  const watch = (client: PooledClient): void => {
    if (watched.has(client)) return;
    watched.add(client);
    destroyOnTimeout(client);
  };
  pool.on('connect', watch);
  pool.on('acquire', watch);
}
