import type { Server, ServerOptions } from 'node:http';
import type { Socket } from 'node:net';
import { clientAddressOf } from './client-address.js';

/** Headers alone must have arrived this long after a request's first byte (contract § 19), or REQUEST_TIMEOUT_MS if shorter. */
export const HEADERS_TIMEOUT_MS = 10_000;
/** How often Node looks for requests past their time, at most: a timeout fires within this long after it is due. */
const CHECK_INTERVAL_MS = 1_000;

/**
 * Node's HTTP server timeouts for REQUEST_TIMEOUT_MS (api-rules.md § Running in production): a request whose headers
 * and body have not all arrived `requestTimeoutMs` after its first byte, or whose headers have not arrived
 * HEADERS_TIMEOUT_MS after it, is answered 408 by the client error handler (answerClientError) and its connection
 * closed. Node counts from a message's first byte (and from the accept for a connection that sends nothing), and its
 * check runs every `connectionsCheckingInterval` (30 s by default, longer than the timeout it checks).
 */
export function requestTimeouts(requestTimeoutMs: number): { requestTimeout: number; http: ServerOptions } {
  return {
    requestTimeout: requestTimeoutMs,
    http: {
      requestTimeout: requestTimeoutMs,
      headersTimeout: Math.min(HEADERS_TIMEOUT_MS, requestTimeoutMs),
      connectionsCheckingInterval: Math.min(CHECK_INTERVAL_MS, Math.floor(requestTimeoutMs / 4)),
    },
  };
}

/**
 * At most `max` open connections per client address (MAX_CONNECTIONS_PER_CLIENT), by the TCP peer grouped as every
 * per-client rule groups it (clientAddressOf: IPv6 by /64): one more is closed as it is accepted, before a byte of it is
 * read, so stalled connections from one address cannot use up the process's sockets and memory for everyone else.
 * Behind a proxy, the proxy is the peer: its connections to an instance count together.
 */
export function capConnectionsPerClient(server: Server, max: number): void {
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const client = clientAddressOf(socket.remoteAddress);
    const count = open.get(client) ?? 0;
    if (count >= max) {
      socket.destroy();
      return;
    }
    open.set(client, count + 1);
    socket.once('close', () => {
      const left = (open.get(client) ?? 1) - 1;
      if (left > 0) open.set(client, left);
      else open.delete(client);
    });
  });
}
