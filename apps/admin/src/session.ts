import { api, ApiFailure, setAccessToken, unwrap, type Schemas } from './api/client';

type Tokens = Schemas['ConsoleTokenResponse'];

let timer: ReturnType<typeof setTimeout> | undefined;

/**
 * When to rotate: a minute before the access token expires, or halfway through a short one. The refresh
 * token never reaches script: it lives in an HttpOnly cookie on /v1/auth/console (api-rules.md § Console).
 */
export function refreshDelayMs(expiresInSeconds: number): number {
  return Math.max(expiresInSeconds / 2, expiresInSeconds - 60) * 1000;
}

function hold(tokens: Tokens): void {
  setAccessToken(tokens.accessToken);
  clearTimeout(timer);
  timer = setTimeout(() => void refresh(), refreshDelayMs(tokens.expiresIn));
}

export async function signIn(email: string, password: string): Promise<void> {
  hold(await unwrap(api.POST('/v1/auth/console/login', { body: { email, password } })));
}

/** Rotates the cookie into a fresh access token; false when there is no console session (or it ended). */
export async function refresh(): Promise<boolean> {
  try {
    hold(await unwrap(api.POST('/v1/auth/console/refresh')));
    return true;
  } catch (error) {
    if (!(error instanceof ApiFailure)) throw error;
    forget();
    return false;
  }
}

export async function signOut(): Promise<void> {
  try {
    await unwrap(api.POST('/v1/auth/console/logout'));
  } finally {
    forget();
  }
}

function forget(): void {
  clearTimeout(timer);
  setAccessToken(null);
}
