import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { canonicalLocale } from '@app/common';
import { parsedBookerCatalog, readerLocale } from '../i18n/index.js';

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

/**
 * `GET /booker/locales/<tag>.json` (contract § 23): the booker's messages for a BCP 47 tag, from the catalog the same
 * lookup as the mails finds (`de-AT` → `de`, `pt` → `pt-BR`, anything else → `en`), parsed by the ICU parser:
 * `{ locale, messages }`. The booker fetches it on demand from the page it is embedded in (any origin: it is public and
 * the same for everyone, so `Access-Control-Allow-Origin: *`, no credentials). A tag that is not well-formed → 404.
 */
export function serveBookerLocales(fastify: FastifyInstance): void {
  fastify.get<{ Params: { tag: string } }>('/booker/locales/:tag', async (request, reply) => {
    void reply
      .header('X-Content-Type-Options', 'nosniff')
      .header('Cross-Origin-Resource-Policy', 'cross-origin')
      .header('Access-Control-Allow-Origin', '*');
    const tag = /^(.{1,35})\.json$/.exec(request.params.tag)?.[1];
    const wellFormed = tag !== undefined && canonicalLocale(tag) !== null;
    if (!tag || !wellFormed) return reply.code(404).type('text/plain; charset=utf-8').send('No such locale');
    const catalog = parsedBookerCatalog(readerLocale(tag, null).catalog);
    return reply.header('Cache-Control', 'public, max-age=300').type('application/json; charset=utf-8').send(JSON.stringify(catalog));
  });
}
