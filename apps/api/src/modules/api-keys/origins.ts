/** The most origins one publishable key may list (api-rules.md § Browser booking). */
export const MAX_ORIGINS = 20;

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1']);

/**
 * `https://host[:port]`, or `http://localhost[:port]` / `http://127.0.0.1[:port]`, exactly as a browser sends it
 * in `Origin` (no path, query, credentials or trailing slash; no wildcard): the origin in its serialized
 * form, or null when `value` is not one. Host case is folded, as browsers fold it.
 */
export function parseOrigin(value: string): string | null {
  if (value.includes('*')) return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (url.origin.toLowerCase() !== value.toLowerCase()) return null;
  if (url.protocol === 'https:') return url.origin;
  return url.protocol === 'http:' && LOCAL_HOSTS.has(url.hostname) ? url.origin : null;
}
