import { ID_PREFIXES } from '@app/common';

/** One of our ids (`bkg_…`, `wh_…`): safe to log, and what a log reader looks for. */
const ID = new RegExp(`^(?:${ID_PREFIXES.join('|')})_[0-9A-Za-z]{20,64}$`);
/** In a path no route matched, a segment long enough to be a token (a feed's is 43 characters) and not an id. */
const TOKEN_LIKE = /^[^/]{20,}$/;
const REDACTED = '[redacted]';

/** What the request serializer is given of a request (Fastify's request). */
export interface PathOfRequest {
  url?: string;
  routeOptions?: { url?: string };
  params?: unknown;
}

/**
 * The path as the request log writes it: without the query string, and with no value from the path but our ids. A
 * matched route is written as its pattern with each parameter's value when it is an id, `[redacted]` otherwise (a
 * calendar feed's `/v1/calendar-feeds/<token>.ics`, and any route that takes a token in its path later); a path no
 * route matched has its token-like segments redacted. api-rules.md § Running.
 */
export function loggedPath(request: PathOfRequest): string | undefined {
  const path = request.url?.split('?')[0];
  const route = request.routeOptions?.url;
  if (path === undefined || route === undefined) return path?.split('/').map(unmatchedSegment).join('/');
  const params = (request.params ?? {}) as Record<string, unknown>;
  return route
    .replace(/:([A-Za-z0-9_]+)/g, (_, name: string) => {
      const value = params[name];
      return typeof value === 'string' && ID.test(value) ? value : REDACTED;
    })
    .replace(/\*$/, () => (typeof params['*'] === 'string' ? params['*'].split('/').map(unmatchedSegment).join('/') : REDACTED));
}

function unmatchedSegment(segment: string): string {
  return TOKEN_LIKE.test(segment) && !ID.test(segment) ? REDACTED : segment;
}
