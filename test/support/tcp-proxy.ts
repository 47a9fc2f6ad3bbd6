import { createServer, type Server, type Socket, connect } from 'node:net';

interface Pair {
  client: Socket;
  upstream: Socket;
  frozen: boolean;
}

/**
 * A TCP proxy in front of PostgreSQL whose connections the test can freeze one by one: the server's answers on a frozen
 * connection are held back (dropped), as when the database machine or the network stops answering without closing the
 * socket. A side that closes closes the other, so a client that gives up on a connection ends the server's session.
 */
export class FreezableProxy {
  private readonly pairs = new Set<Pair>();
  private readonly server: Server;
  port = 0;

  private constructor(target: { host: string; port: number }) {
    this.server = createServer((client) => {
      const upstream = connect(target.port, target.host);
      const pair: Pair = { client, upstream, frozen: false };
      this.pairs.add(pair);
      client.on('data', (chunk) => upstream.write(chunk));
      upstream.on('data', (chunk) => {
        if (!pair.frozen) client.write(chunk);
      });
      const close = (): void => {
        this.pairs.delete(pair);
        client.destroy();
        upstream.destroy();
      };
      for (const socket of [client, upstream]) {
        socket.on('error', close);
        socket.on('close', close);
      }
    });
  }

  static async start(target: { host: string; port: number }): Promise<FreezableProxy> {
    const proxy = new FreezableProxy(target);
    await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve));
    const address = proxy.server.address();
    proxy.port = typeof address === 'object' && address ? address.port : 0;
    return proxy;
  }

  /** `url` with its host and port replaced by the proxy's. */
  url(url: string): string {
    const proxied = new URL(url);
    proxied.hostname = '127.0.0.1';
    proxied.port = String(this.port);
    return proxied.toString();
  }

  /** Freezes the connection whose socket to the server has this local port (`pg_stat_activity.client_port`). */
  freeze(serverSidePort: number): boolean {
    for (const pair of this.pairs) {
      if (pair.upstream.localPort === serverSidePort) {
        pair.frozen = true;
        return true;
      }
    }
    return false;
  }

  async close(): Promise<void> {
    for (const pair of this.pairs) {
      pair.client.destroy();
      pair.upstream.destroy();
    }
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
