import { existsSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';

/**
 * The console may load only its own files and talk only to this origin: no inline script or style, no
 * framing, no plugins. Hashed assets never change, so they are cached for a year; the page itself is
 * revalidated on every load so a deploy is picked up at once.
 */
export const ADMIN_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

// A hashed file name: word characters around single dots, so never `..`.
const ASSET = /^assets\/[\w-]+(?:\.[\w-]+)+$/;

function secure(reply: FastifyReply): FastifyReply {
  return reply
    .header('Content-Security-Policy', ADMIN_CSP)
    .header('X-Content-Type-Options', 'nosniff')
    .header('Referrer-Policy', 'no-referrer')
    .header('Cross-Origin-Opener-Policy', 'same-origin');
}

/**
 * Serves the built console at /admin: hashed files under /admin/assets/, and `index.html` for every other
 * path below /admin, which the console's router then reads (client-side routes survive a reload).
 */
export async function serveAdminConsole(fastify: FastifyInstance, dir: string): Promise<void> {
  await fastify.register(fastifyStatic, { root: dir, serve: false });
  const built = (): boolean => existsSync(join(dir, 'index.html'));

  const page = (reply: FastifyReply): FastifyReply => {
    if (!built()) {
      return secure(reply).code(503).type('text/plain; charset=utf-8').send('The admin console is not built: run `npm run build`.');
    }
    return secure(reply).header('Cache-Control', 'no-cache').sendFile('index.html', { cacheControl: false });
  };

  fastify.get('/admin', (_request, reply) => page(reply));
  fastify.get<{ Params: { '*': string } }>('/admin/*', (request, reply) => {
    const path = request.params['*'];
    if (path.startsWith('assets/')) {
      if (!ASSET.test(path) || !existsSync(join(dir, path))) {
        return secure(reply).code(404).type('text/plain; charset=utf-8').send('Not found');
      }
      return secure(reply).sendFile(path, { immutable: true, maxAge: '365d' });
    }
    return page(reply);
  });
}
