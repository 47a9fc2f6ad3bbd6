import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { ALL_SCOPES, AppConfig, Clock, newId, randomBase62, type Scope, sha256 } from '@app/common';
import { TransactionHost } from '@app/database';
import { PeriodicJobs, RETENTION_INTERVAL_MS } from '../../jobs/index.js';
import { OAuthApp } from './entities/oauth-app.entity.js';
import { OAuthAuthorization } from './entities/oauth-authorization.entity.js';
import { OAuthToken } from './entities/oauth-token.entity.js';
import { OAuthProtocolRepository } from './oauth-protocol.repository.js';

export const REQUEST_TTL_MS = 10 * 60 * 1000;
export const CODE_TTL_MS = 60 * 1000;
export const ACCESS_TOKEN_TTL_S = 3600;
export const REFRESH_TOKEN_TTL_MS = 90 * 24 * 60 * 60 * 1000;
export const ACCESS_TOKEN_PATTERN = /^oat_[0-9A-Za-z]{32,128}$/;
const REFRESH_TOKEN_PATTERN = /^ort_[0-9A-Za-z]{32,128}$/;
/** RFC 7636 § 4.1 and § 4.2: 43..128 unreserved characters; an S256 challenge is 43 base64url characters. */
const CODE_VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
const CODE_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
const MAX_STATE_LENGTH = 1000;
const SWEEP_AFTER_MS = 24 * 60 * 60 * 1000;

/** RFC 6749 § 5.2's error answer of the token and revocation endpoints. */
export class OAuthError extends Error {
  constructor(
    readonly error: string,
    readonly description: string,
    readonly status = 400,
  ) {
    super(description);
  }
}

/** A replayed code or refresh token, found inside the redeeming transaction: its chain is revoked after it rolls back. */
class Replay extends Error {}

export type Parameters = Map<string, string>;

export type AuthorizeOutcome = { kind: 'page'; message: string } | { kind: 'redirect'; location: string };

export interface TokenAnswer {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

/** `uri` with the parameters added to its query (a registered redirect URI may carry a query of its own). */
export function withQuery(uri: string, parameters: Record<string, string | null | undefined>): string {
  const url = new URL(uri);
  for (const [name, value] of Object.entries(parameters)) if (value !== null && value !== undefined) url.searchParams.append(name, value);
  return url.toString();
}

/** The scopes of a `scope` parameter; null when one is not a scope of section 4. */
export function parseScopes(value: string): Scope[] | null {
  const names = value.split(' ').filter((name) => name !== '');
  if (names.some((name) => !(ALL_SCOPES as readonly string[]).includes(name))) return null;
  return [...new Set(names)] as Scope[];
}

function s256(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}

function credentialsOf(header: string | undefined): { id: string; secret: string } | null | 'malformed' {
  if (header === undefined) return null;
  const match = /^Basic ([A-Za-z0-9+/=]+)$/i.exec(header);
  if (!match) return 'malformed';
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return 'malformed';
  // RFC 6749 § 2.3.1: both parts are form-urlencoded before they are joined.
  const decode = (part: string): string | null => {
    try {
      return decodeURIComponent(part.replaceAll('+', ' '));
    } catch {
      return null;
    }
  };
  const id = decode(decoded.slice(0, colon));
  const secret = decode(decoded.slice(colon + 1));
  return id === null || secret === null ? 'malformed' : { id, secret };
}

/**
 * The authorization server's protocol (contract § 20, RFC 6749 with RFC 9700's practice, RFC 7636, RFC 7009, RFC 8414,
 * RFC 9207): the authorization request, the token endpoint's two grants and revocation. Written here rather than
 * through oidc-provider (docs/reference/api-notes.md): the contract's shapes are its own.
 */
@Injectable()
export class OAuthProtocolService {
  constructor(
    private readonly repository: OAuthProtocolRepository,
    private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly tx: TransactionHost,
    jobs: PeriodicJobs,
  ) {
    // Expired tokens and requests are kept a day (a late call is told why), then swept.
    jobs.register('oauth-cleanup', RETENTION_INTERVAL_MS, () =>
      this.repository.deleteExpiredBefore(new Date(this.clock.now().getTime() - SWEEP_AFTER_MS)),
    );
  }

  get issuer(): string {
    return this.config.publicUrl;
  }

  /** RFC 8414's document. */
  metadata(): Record<string, unknown> {
    return {
      issuer: this.issuer,
      authorization_endpoint: `${this.issuer}/oauth/authorize`,
      token_endpoint: `${this.issuer}/oauth/token`,
      revocation_endpoint: `${this.issuer}/oauth/revoke`,
      scopes_supported: [...ALL_SCOPES],
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
      revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
      authorization_response_iss_parameter_supported: true,
      service_documentation: `${this.issuer}/docs`,
    };
  }

  /**
   * GET /oauth/authorize. Without a known client and one of its redirect URIs exactly, nothing is redirected (a page);
   * any other fault goes back to the redirect URI with `error`, `state` and `iss`; else the request is stored for the
   * console's consent page.
   */
  async authorize(query: Record<string, unknown>): Promise<AuthorizeOutcome> {
    const single = (name: string): string | undefined | 'repeated' => {
      const value = query[name];
      if (value === undefined) return undefined;
      return typeof value === 'string' ? value : 'repeated';
    };
    const clientId = single('client_id');
    const redirectUri = single('redirect_uri');
    if (clientId === undefined || clientId === 'repeated' || clientId === '')
      return { kind: 'page', message: 'The request names no client (client_id).' };
    const app = await this.repository.appByClientId(clientId);
    if (!app) return { kind: 'page', message: 'No app has this client_id.' };
    if (redirectUri === undefined || redirectUri === 'repeated' || !app.redirectUris.includes(redirectUri)) {
      return { kind: 'page', message: 'The redirect_uri is not one the app registered (it must match exactly).' };
    }
    const state = single('state');
    const back = (error: string, description: string): AuthorizeOutcome => ({
      kind: 'redirect',
      location: withQuery(redirectUri, {
        error,
        error_description: description,
        state: state === 'repeated' ? undefined : state,
        iss: this.issuer,
      }),
    });
    for (const name of ['response_type', 'scope', 'state', 'code_challenge', 'code_challenge_method']) {
      if (single(name) === 'repeated') return back('invalid_request', `The parameter ${name} is repeated`);
    }
    if (state !== undefined && state.length > MAX_STATE_LENGTH) return back('invalid_request', 'state is too long');
    const responseType = single('response_type');
    if (responseType === undefined) return back('invalid_request', 'response_type is missing');
    if (responseType !== 'code') return back('unsupported_response_type', 'Only response_type=code is supported');
    const challenge = single('code_challenge');
    const method = single('code_challenge_method');
    if (challenge === undefined) return back('invalid_request', 'PKCE is required: send code_challenge and code_challenge_method=S256');
    if (method !== 'S256') return back('invalid_request', 'code_challenge_method must be S256');
    if (!CODE_CHALLENGE.test(challenge as string)) return back('invalid_request', 'code_challenge must be 43 base64url characters');
    const scopes = parseScopes((single('scope') as string | undefined) ?? '');
    if (scopes === null || scopes.length === 0)
      return back('invalid_scope', 'Name the scopes the app needs (scope), from the scopes it registered');
    const outside = scopes.filter((scope) => !app.scopes.includes(scope));
    if (outside.length > 0) return back('invalid_scope', `The app may not ask for ${outside.join(' ')}`);
    const now = this.clock.now();
    const request = Object.assign(new OAuthAuthorization(), {
      id: newId('oar'),
      organizationId: app.organizationId,
      appId: app.id,
      redirectUri,
      scopes,
      state: state ?? null,
      codeChallenge: challenge as string,
      createdAt: now,
      expiresAt: new Date(now.getTime() + REQUEST_TTL_MS),
      decidedAt: null,
      approved: null,
      connectingOrganizationId: null,
      grantId: null,
      codeHash: null,
      codeExpiresAt: null,
      codeUsedAt: null,
    } satisfies OAuthAuthorization);
    await this.tx.transaction(() => this.repository.insertAuthorization(request));
    return { kind: 'redirect', location: `/admin/oauth/consent?request=${encodeURIComponent(request.id)}` };
  }

  /** POST /oauth/token: the answer, or an OAuthError to render. */
  async token(parameters: Parameters, authorization: string | undefined): Promise<TokenAnswer> {
    const app = await this.client(parameters, authorization);
    const grantType = parameters.get('grant_type');
    if (grantType === undefined) throw new OAuthError('invalid_request', 'grant_type is missing');
    if (grantType === 'authorization_code') return this.exchangeCode(app, parameters);
    if (grantType === 'refresh_token') return this.refresh(app, parameters);
    throw new OAuthError('unsupported_grant_type', 'grant_type must be authorization_code or refresh_token');
  }

  /** POST /oauth/revoke (RFC 7009): 200 whatever the token was; a refresh token takes its chain with it. */
  async revoke(parameters: Parameters, authorization: string | undefined): Promise<void> {
    const app = await this.client(parameters, authorization);
    const presented = parameters.get('token');
    if (presented === undefined || presented === '') throw new OAuthError('invalid_request', 'token is missing');
    const token = await this.repository.tokenByHash(sha256(presented), app.id);
    if (!token) return;
    const now = this.clock.now();
    await this.tx.transaction(() =>
      token.kind === 'refresh' ? this.repository.revokeChain(token.authorization_id, now) : this.repository.revokeToken(token.id, now),
    );
  }

  /**
   * The app that calls, authenticated as its type requires: a confidential app by client_secret_basic or
   * client_secret_post (its current secret, or the previous one for 24 hours after a rotation), a public app by its
   * client_id alone.
   */
  private async client(parameters: Parameters, authorization: string | undefined): Promise<OAuthApp> {
    const basic = credentialsOf(authorization);
    if (basic === 'malformed') throw new OAuthError('invalid_client', 'Malformed Authorization header: use Basic', 401);
    const postedId = parameters.get('client_id');
    const postedSecret = parameters.get('client_secret');
    if (basic && postedSecret !== undefined) throw new OAuthError('invalid_request', 'Use one client authentication method');
    if (basic && postedId !== undefined && postedId !== basic.id)
      throw new OAuthError('invalid_request', 'client_id differs from the Authorization header');
    const clientId = basic?.id ?? postedId;
    if (clientId === undefined || clientId === '') throw new OAuthError('invalid_client', 'Client authentication is required', 401);
    const app = await this.repository.appByClientId(clientId);
    if (!app) throw new OAuthError('invalid_client', 'Client authentication failed', 401);
    const secret = basic?.secret ?? postedSecret;
    if (app.type === 'public') {
      if (secret !== undefined) throw new OAuthError('invalid_client', 'A public client has no secret', 401);
      return app;
    }
    if (secret === undefined) throw new OAuthError('invalid_client', 'A confidential client authenticates with its secret', 401);
    const hash = sha256(secret);
    const previousValid =
      app.previousSecretHash !== null &&
      app.previousSecretExpiresAt !== null &&
      app.previousSecretExpiresAt.getTime() > this.clock.now().getTime();
    if (hash !== app.secretHash && !(previousValid && hash === app.previousSecretHash)) {
      throw new OAuthError('invalid_client', 'Client authentication failed', 401);
    }
    return app;
  }

  private async exchangeCode(app: OAuthApp, parameters: Parameters): Promise<TokenAnswer> {
    const code = parameters.get('code');
    const redirectUri = parameters.get('redirect_uri');
    const verifier = parameters.get('code_verifier');
    if (!code) throw new OAuthError('invalid_request', 'code is missing');
    if (!redirectUri) throw new OAuthError('invalid_request', 'redirect_uri is missing');
    if (!verifier) throw new OAuthError('invalid_request', 'code_verifier is missing (PKCE is required)');
    const codeHash = sha256(code);
    const now = this.clock.now();
    try {
      return await this.tx.transaction(async () => {
        const redeemed = await this.repository.redeemCode(codeHash, app.id, now);
        if (!redeemed) throw new Replay();
        if (redeemed.code_expires_at.getTime() <= now.getTime()) throw new OAuthError('invalid_grant', 'The code has expired');
        if (redeemed.redirect_uri !== redirectUri)
          throw new OAuthError('invalid_grant', 'redirect_uri differs from the authorization request’s');
        if (!CODE_VERIFIER.test(verifier) || s256(verifier) !== redeemed.code_challenge) {
          throw new OAuthError('invalid_grant', 'code_verifier does not match the code_challenge');
        }
        const grant = redeemed.grant_id === null ? null : await this.repository.lockGrant(redeemed.grant_id);
        if (!grant) throw new OAuthError('invalid_grant', 'The grant was revoked');
        return this.issue(app, grant, redeemed.id, redeemed.scopes, now);
      });
    } catch (error) {
      if (!(error instanceof Replay)) throw error;
      const previous = await this.repository.redeemedCode(codeHash, app.id);
      if (previous) {
        await this.tx.transaction(() => this.repository.revokeChain(previous.id, now));
        throw new OAuthError('invalid_grant', 'The code was used already; the tokens issued from it are revoked');
      }
      throw new OAuthError('invalid_grant', 'Unknown code');
    }
  }

  private async refresh(app: OAuthApp, parameters: Parameters): Promise<TokenAnswer> {
    const presented = parameters.get('refresh_token');
    if (!presented) throw new OAuthError('invalid_request', 'refresh_token is missing');
    const asked = parameters.get('scope');
    const narrower = asked === undefined ? null : parseScopes(asked);
    if (narrower === null && asked !== undefined) throw new OAuthError('invalid_scope', 'scope names an unknown scope');
    if (narrower !== null && narrower.length === 0) throw new OAuthError('invalid_scope', 'scope is empty');
    if (!REFRESH_TOKEN_PATTERN.test(presented)) throw new OAuthError('invalid_grant', 'Unknown refresh token');
    const tokenHash = sha256(presented);
    const now = this.clock.now();
    try {
      return await this.tx.transaction(async () => {
        const rotated = await this.repository.rotateRefresh(tokenHash, app.id, now);
        if (!rotated) throw new Replay();
        if (narrower && narrower.some((scope) => !rotated.scopes.includes(scope))) {
          throw new OAuthError('invalid_scope', 'A refresh may narrow the scopes, never widen them');
        }
        return this.issue(
          app,
          { id: rotated.grant_id, organization_id: rotated.organization_id },
          rotated.authorization_id,
          narrower ?? rotated.scopes,
          now,
        );
      });
    } catch (error) {
      if (!(error instanceof Replay)) throw error;
      const token = await this.repository.tokenByHash(tokenHash, app.id);
      if (token && token.kind === 'refresh' && (token.used_at !== null || token.revoked_at !== null)) {
        await this.tx.transaction(() => this.repository.revokeChain(token.authorization_id, now));
        throw new OAuthError('invalid_grant', 'The refresh token was used already; every token of its chain is revoked');
      }
      throw new OAuthError('invalid_grant', 'Unknown or expired refresh token');
    }
  }

  private async issue(
    app: OAuthApp,
    grant: { id: string; organization_id: string },
    authorizationId: string,
    scopes: Scope[],
    now: Date,
  ): Promise<TokenAnswer> {
    const accessToken = `oat_${randomBase62(40)}`;
    const refreshToken = `ort_${randomBase62(40)}`;
    const row = (kind: 'access' | 'refresh', token: string, expiresAt: Date): OAuthToken =>
      Object.assign(new OAuthToken(), {
        id: newId('otk'),
        organizationId: grant.organization_id,
        grantId: grant.id,
        appId: app.id,
        authorizationId,
        kind,
        tokenHash: sha256(token),
        scopes,
        createdAt: now,
        expiresAt,
        usedAt: null,
        revokedAt: null,
      } satisfies OAuthToken);
    await this.repository.insertTokens([
      row('access', accessToken, new Date(now.getTime() + ACCESS_TOKEN_TTL_S * 1000)),
      row('refresh', refreshToken, new Date(now.getTime() + REFRESH_TOKEN_TTL_MS)),
    ]);
    return {
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: ACCESS_TOKEN_TTL_S,
      refresh_token: refreshToken,
      scope: scopes.join(' '),
    };
  }
}
