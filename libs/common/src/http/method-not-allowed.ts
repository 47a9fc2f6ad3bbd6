import FindMyWay, { type HTTPMethod } from 'find-my-way';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors/app-error.js';
import { ErrorCode } from '../errors/error-code.js';
import { renderError } from './error-body.js';

/**
 * A request whose path exists but not for its method is 405 METHOD_NOT_ALLOWED with an `Allow` header,
 * not 404: it tells a client its URL is right. Fastify's router answers only "no route", so the routes
 * are mirrored into a router of our own that is asked, per method, only after Fastify found none.
 * Call before the routes are registered (the onRoute hook sees only later ones).
 */
export function answerMethodNotAllowed(fastify: FastifyInstance): void {
  const routes = FindMyWay({ ignoreTrailingSlash: fastify.initialConfig.ignoreTrailingSlash });
  const methods = new Set<HTTPMethod>();
  const noop = (): void => undefined;
  fastify.addHook('onRoute', (route) => {
    // @fastify/cors answers OPTIONS on every path through one catch-all route: not a method of any path.
    if (route.url === '*') return;
    for (const method of ([] as string[]).concat(route.method)) {
      const name = method.toUpperCase() as HTTPMethod;
      methods.add(name);
      if (!routes.hasRoute(name, route.url)) routes.on(name, route.url, noop);
    }
  });
  /**
   * The methods `path` has. A path that is a static route for some method belongs to that route alone: a
   * parametric route of another method does not count for it (`/calendars/busy` is not the calendar `busy`).
   */
  const allowedOn = (path: string): { allowed: HTTPMethod[]; exact: boolean } => {
    const found = [...methods].flatMap((method) => {
      const match = routes.find(method, path);
      return match ? [{ method, exact: Object.keys(match.params).length === 0 }] : [];
    });
    const exact = found.filter((match) => match.exact);
    return { allowed: (exact.length > 0 ? exact : found).map((match) => match.method).sort(), exact: exact.length > 0 };
  };
  fastify.addHook('onRequest', async (request, reply) => {
    const catchAll = request.routeOptions.url === '*';
    // A parametric route matched: the path may still be another route's static one (the fuzzer's PATCH /calendars/busy).
    const parametric = !request.is404 && !catchAll && (request.routeOptions.url ?? '').includes(':');
    if (!request.is404 && !catchAll && !parametric) return;
    const path = request.url.split('?', 1)[0];
    const { allowed, exact } = allowedOn(path);
    if (parametric && (!exact || allowed.includes(request.method as HTTPMethod))) return;
    if (allowed.length === 0) return;
    const allow = allowed.join(', ');
    const error = new AppError(ErrorCode.METHOD_NOT_ALLOWED, `${request.method} is not allowed here; allowed: ${allow}`, undefined, {
      Allow: allow,
    });
    if (!catchAll) throw error;
    // The catch-all route was registered before Nest installed its error handler: render the API's error body here.
    const rendered = renderError(error, String(request.id));
    return reply.code(rendered.status).headers(rendered.headers).send(rendered.body);
  });
}
