export type Credential =
  | { kind: 'none' }
  | { kind: 'malformed' }
  | { kind: 'api_key'; value: string }
  | { kind: 'app_token'; value: string }
  | { kind: 'jwt'; value: string };

const MAX_HEADER_LENGTH = 4096;
const KEY_PREFIX = /^(mk|pk)_(live|test)_/;
/** A partner app's access token (contract § 20). */
const APP_TOKEN_PREFIX = 'oat_';

/**
 * `ApiKey <key>` or `Bearer <jwt>`; a Bearer value that looks like a key is a key (api-rules.md § Auth), one that starts
 * with `oat_` an app's access token.
 * Anything else (extra spaces, unknown scheme, an oversized value) is malformed.
 */
export function parseAuthorization(header: string | string[] | undefined): Credential {
  if (header === undefined || header === '') return { kind: 'none' };
  if (Array.isArray(header) || header.length > MAX_HEADER_LENGTH) return { kind: 'malformed' };
  const match = /^(ApiKey|Bearer) ([^\s]+)$/i.exec(header);
  if (!match) return { kind: 'malformed' };
  const [, scheme, value] = match;
  if (scheme.toLowerCase() === 'apikey' || KEY_PREFIX.test(value)) return { kind: 'api_key', value };
  if (value.startsWith(APP_TOKEN_PREFIX)) return { kind: 'app_token', value };
  return { kind: 'jwt', value };
}
