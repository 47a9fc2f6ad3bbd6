import type { FastifyInstance } from 'fastify';

/** How long answers under way when the server closes may take before their connections are cut (an orchestrator's
 * grace period is commonly 30 s, and Nest's shutdown hooks run before the server closes). */
export const CLOSE_GRACE_MS = 20_000;
const IDLE_SWEEP_MS = 100;

/**
 * Lets the server close as soon as the answers under way have gone. Closing (Fastify's `close`, from Nest's
 * `app.close()`) stops accepting, answers new requests on open connections 503 with `Connection: close`, and closes the
 * keep-alive connections idle at that moment; a connection whose answer was still being made or written stays open
 * after it until its keep-alive timeout (72 s by default), and the process with it: longer than an orchestrator waits
 * before it kills. From the close on, connections are closed as soon as they are idle (their answer sent whole); those
 * still busy after `graceMs` are cut, and `onCut` says how many.
 */
export function closeConnectionsOnClose(fastify: FastifyInstance, onCut: (connections: number) => void, graceMs = CLOSE_GRACE_MS): void {
  fastify.addHook('preClose', (done) => {
    const server = fastify.server;
    // The server stops listening right after this hook: from then on idle means finished, never not yet begun.
    const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS).unref();
    const cut = setTimeout(() => {
      clearInterval(sweep);
      server.getConnections((_error, count) => {
        if (count > 0) onCut(count);
        server.closeAllConnections();
      });
    }, graceMs).unref();
    server.once('close', () => {
      clearInterval(sweep);
      clearTimeout(cut);
    });
    done();
  });
}
