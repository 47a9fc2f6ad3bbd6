/**
 * CORS (api-rules.md § Browser booking), expressed as @fastify/cors route options: only the routes that carry them
 * answer other origins; every other route sends no CORS header at all (the plugin's global origin is false).
 */
export const CORS_EXPOSED_HEADERS = ['X-Request-Id', 'Retry-After', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'];

/** The options for a browser-facing route: any origin is reflected; the publishable key's origin list is checked before. */
export const BROWSER_CORS = {
  origin: true,
  methods: ['GET', 'POST'],
  allowedHeaders: ['authorization', 'content-type', 'idempotency-key'],
  exposedHeaders: CORS_EXPOSED_HEADERS,
  maxAge: 600,
  credentials: false,
  // A preflight without Access-Control-Request-Method still gets the headers rather than a text/plain 400.
  strictPreflight: false,
} as const;

/** What a route's Fastify config carries: the CORS options, and whether a publishable key is checked before them. */
export interface BrowserRouteConfig {
  cors: typeof BROWSER_CORS;
  /** (P) routes: the publishable key and its allowed origins are checked before any CORS header is written. */
  publishableKey?: true;
  /** The route's first read, composed with the publishable key's lookup (AccessRule `withKey`). */
  withKey?: string;
}
