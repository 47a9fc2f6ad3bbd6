import * as o from 'oauth4webapi';

/** The authorization server: the API's PUBLIC_URL (its endpoints are `/oauth/authorize` and `/oauth/token`, contract § 20). */
export interface OAuthServerOptions {
  /** The issuer, e.g. `https://scheduling.example.com`; `baseUrl` is accepted as its other name. */
  issuer?: string;
  baseUrl?: string;
  clientId: string;
  /** A confidential app's secret (sent with HTTP Basic); none for a public app (PKCE alone). */
  clientSecret?: string;
  /** Another fetch for the token requests (a proxy, a test double). */
  fetch?: (url: string, init: RequestInit) => Promise<Response>;
}

export interface AuthorizationUrlOptions extends Omit<OAuthServerOptions, 'clientSecret' | 'fetch'> {
  redirectUri: string;
  /** Space-separated scopes, or a list: `bookings:read bookings:write`. */
  scope: string | string[];
  /** Your own opaque value; a random one by default. Keep it with `codeVerifier` until the callback. */
  state?: string;
}

export interface AuthorizationRequest {
  /** Where to send the user's browser. */
  url: string;
  /** PKCE's secret half: keep it (server side or in session storage) for `exchangeCode`. */
  codeVerifier: string;
  state: string;
}

export interface ExchangeCodeOptions extends OAuthServerOptions {
  redirectUri: string;
  /** The URL the browser came back to (with `code`, `state` and `iss`), or its query string. */
  callbackUrl: string | URL | URLSearchParams;
  codeVerifier: string;
  /** The state `authorizationUrl` returned: the callback's must match it. */
  state: string;
}

export interface RefreshOptions extends OAuthServerOptions {
  refreshToken: string;
}

export interface TokenSet {
  /** `oat_…`: send as `Authorization: Bearer` (createClient's `accessToken`). */
  accessToken: string;
  /** `ort_…`: single use; each refresh returns the next one. */
  refreshToken: string | undefined;
  /** When the access token expires, in milliseconds since the epoch. */
  expiresAt: number | undefined;
  scope: string | undefined;
}

function issuerOf(options: { issuer?: string; baseUrl?: string }): string {
  const issuer = options.issuer ?? options.baseUrl;
  if (!issuer) throw new TypeError('oauth: issuer (or baseUrl) is required');
  return issuer.replace(/\/+$/, '');
}

function serverOf(issuer: string): o.AuthorizationServer {
  return {
    issuer,
    authorization_endpoint: `${issuer}/oauth/authorize`,
    token_endpoint: `${issuer}/oauth/token`,
    authorization_response_iss_parameter_supported: true,
    code_challenge_methods_supported: ['S256'],
  };
}

function requestOptions(issuer: string, options: OAuthServerOptions): o.TokenEndpointRequestOptions {
  const result: o.TokenEndpointRequestOptions = {};
  // A development server on plain http (http://localhost:3000): oauth4webapi refuses http unless told.
  if (issuer.startsWith('http:')) result[o.allowInsecureRequests] = true;
  if (options.fetch) result[o.customFetch] = options.fetch as NonNullable<o.TokenEndpointRequestOptions[typeof o.customFetch]>;
  return result;
}

function tokenSet(response: o.TokenEndpointResponse): TokenSet {
  return {
    accessToken: response.access_token,
    refreshToken: response.refresh_token,
    expiresAt: response.expires_in === undefined ? undefined : Date.now() + response.expires_in * 1000,
    scope: response.scope,
  };
}

function clientAuth(options: OAuthServerOptions): o.ClientAuth {
  return options.clientSecret === undefined ? o.None() : o.ClientSecretBasic(options.clientSecret);
}

/** The authorization URL with PKCE (S256) and a state: send the browser there, keep `codeVerifier` and `state`. */
export async function authorizationUrl(options: AuthorizationUrlOptions): Promise<AuthorizationRequest> {
  const issuer = issuerOf(options);
  const codeVerifier = o.generateRandomCodeVerifier();
  const state = options.state ?? o.generateRandomState();
  const url = new URL(serverOf(issuer).authorization_endpoint!);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', options.clientId);
  url.searchParams.set('redirect_uri', options.redirectUri);
  url.searchParams.set('scope', Array.isArray(options.scope) ? options.scope.join(' ') : options.scope);
  url.searchParams.set('state', state);
  url.searchParams.set('code_challenge', await o.calculatePKCECodeChallenge(codeVerifier));
  url.searchParams.set('code_challenge_method', 'S256');
  return { url: url.toString(), codeVerifier, state };
}

/**
 * The callback's code exchanged for tokens, after checking its `state` and `iss`. Throws oauth4webapi's
 * AuthorizationResponseError when the user denied (`error=access_denied`), ResponseBodyError when the server refused.
 */
export async function exchangeCode(options: ExchangeCodeOptions): Promise<TokenSet> {
  const issuer = issuerOf(options);
  const as = serverOf(issuer);
  const client: o.Client = { client_id: options.clientId };
  const callback =
    options.callbackUrl instanceof URLSearchParams
      ? options.callbackUrl
      : new URL(options.callbackUrl.toString(), options.redirectUri).searchParams;
  const parameters = o.validateAuthResponse(as, client, callback, options.state);
  const response = await o.authorizationCodeGrantRequest(
    as,
    client,
    clientAuth(options),
    parameters,
    options.redirectUri,
    options.codeVerifier,
    requestOptions(issuer, options),
  );
  return tokenSet(await o.processAuthorizationCodeResponse(as, client, response));
}

/** A new access token (and the next refresh token: each is single use) for a refresh token. */
export async function refresh(options: RefreshOptions): Promise<TokenSet> {
  const issuer = issuerOf(options);
  const as = serverOf(issuer);
  const client: o.Client = { client_id: options.clientId };
  const response = await o.refreshTokenGrantRequest(as, client, clientAuth(options), options.refreshToken, requestOptions(issuer, options));
  return tokenSet(await o.processRefreshTokenResponse(as, client, response));
}
