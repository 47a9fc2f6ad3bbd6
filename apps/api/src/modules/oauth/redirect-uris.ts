const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Why a redirect URI may not be registered, or null when it may (contract § 20): an absolute `https` URL, or `http`
 * on a loopback host (a native app or a developer's machine); no fragment. It is kept exactly as written: the
 * authorization request must repeat it character for character.
 */
export function redirectUriProblem(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `'${value}' is not an absolute URL`;
  }
  if (value.includes('#')) return `'${value}' has a fragment`;
  if (url.username !== '' || url.password !== '') return `'${value}' carries credentials`;
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)) return null;
  return `'${value}' must be https, or http on localhost, 127.0.0.1 or [::1]`;
}

/** An app's homepage or logo: https only. */
export function httpsUrlProblem(value: string): string | null {
  try {
    return new URL(value).protocol === 'https:' ? null : `'${value}' must be an https URL`;
  } catch {
    return `'${value}' is not an absolute URL`;
  }
}
