import type { IncomingMessage } from 'node:http';
import type { FastifyReply } from 'fastify';

/** How much of a refused body is read and dropped before the answer, at most: past either, the connection closes. */
export const DRAIN_MAX_BYTES = 64 * 1024 * 1024;
export const DRAIN_MAX_MS = 5000;

/**
 * Reads and drops what is left of a request's body before its answer goes out, as mature servers do before they
 * answer 413: a server that answers and closes while the client is still sending resets the connection, and the
 * client (still writing, EPIPE) may never read the answer. Bounded in bytes and time, so that a body that never
 * ends cannot hold the connection: past either bound the answer goes with `Connection: close`.
 */
export function drainRequest(
  request: IncomingMessage,
  reply: FastifyReply,
  maxBytes = DRAIN_MAX_BYTES,
  maxMs = DRAIN_MAX_MS,
): Promise<void> {
  if (request.complete || request.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    let read = 0;
    const finish = (cutOff: boolean): void => {
      clearTimeout(timer);
      request.removeListener('data', onData);
      request.removeListener('end', onEnd);
      request.removeListener('error', onEnd);
      request.removeListener('close', onEnd);
      if (cutOff) {
        request.pause();
        void reply.header('Connection', 'close');
      }
      resolve();
    };
    const onData = (chunk: Buffer): void => {
      read += chunk.length;
      if (read > maxBytes) finish(true);
    };
    const onEnd = (): void => finish(false);
    const timer = setTimeout(() => finish(true), maxMs);
    request.on('data', onData);
    request.once('end', onEnd);
    request.once('error', onEnd);
    request.once('close', onEnd);
    request.resume();
  });
}
