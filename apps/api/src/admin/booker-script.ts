import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';

/**
 * `GET /booker.js` (api-rules.md § Browser booking): the embeddable booker, built by `npm run build` into `dist/booker`. Any
 * site may load it (a script tag needs no CORS); a page's CSP names this origin for it. Cached five minutes, so a
 * deploy reaches every page within that. Kept in memory once read: it is one small file.
 */
export function serveBookerScript(fastify: FastifyInstance, dir: string): void {
  let script: Buffer | null = null;
  fastify.get('/booker.js', async (_request, reply) => {
    script ??= await readFile(join(dir, 'booker.js')).catch(() => null);
    void reply.header('X-Content-Type-Options', 'nosniff').header('Cross-Origin-Resource-Policy', 'cross-origin');
    if (script === null) {
      return reply.code(503).type('text/plain; charset=utf-8').send('The booker is not built: run `npm run build`.');
    }
    return reply.header('Cache-Control', 'public, max-age=300').type('text/javascript; charset=utf-8').send(script);
  });
}
