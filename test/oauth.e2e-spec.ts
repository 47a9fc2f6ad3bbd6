import * as oauth from 'oauth4webapi';
import pg from 'pg';
import { PeriodicJobs } from '../apps/api/src/jobs/index.js';
import { startTestApp, type TestApp } from './support/app.js';
import { addMember, type AddedMember, registerOwner, type RegisteredOwner } from './support/factories.js';

/** The service's PUBLIC_URL in this file: the issuer the partner's client expects; its requests are sent to the test app. */
const ISSUER = 'https://scheduling.test';
const REDIRECT = 'https://partner.example/callback';
const APP_SCOPES = ['event_types:read', 'team:read', 'team:write', 'bookings:read'];

let t: TestApp;
let partner: RegisteredOwner;
let customer: RegisteredOwner;
let member: AddedMember;

interface Registered {
  id: string;
  clientId: string;
  clientSecret?: string;
  as: oauth.AuthorizationServer;
  client: oauth.Client;
  auth: oauth.ClientAuth;
}

/** The partner's requests, on their way to the issuer, reach the test app (which listens on a random port). */
function fetchVia(target: () => TestApp): (url: string, options: oauth.CustomFetchOptions<string, unknown>) => Promise<Response> {
  return (url, options) => fetch(url.replace(ISSUER, target().url), options as RequestInit);
}

function http(target: () => TestApp = () => t): { [oauth.customFetch]: ReturnType<typeof fetchVia> } {
  return { [oauth.customFetch]: fetchVia(target) };
}

async function discover(): Promise<oauth.AuthorizationServer> {
  const issuer = new URL(ISSUER);
  return oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...http() }));
}

async function registerApp(body: Record<string, unknown> = {}): Promise<Registered> {
  const res = await t.http.post(
    '/v1/oauth-apps',
    {
      name: 'Partner CRM',
      type: 'confidential',
      redirectUris: [REDIRECT],
      scopes: APP_SCOPES,
      homepageUrl: 'https://partner.example',
      ...body,
    },
    { token: partner.accessToken },
  );
  expect(res.status).toBe(201);
  const { app, clientSecret } = res.body as { app: { id: string; clientId: string }; clientSecret?: string };
  return {
    id: app.id,
    clientId: app.clientId,
    clientSecret,
    as: await discover(),
    client: { client_id: app.clientId },
    auth: clientSecret === undefined ? oauth.None() : oauth.ClientSecretBasic(clientSecret),
  };
}

async function authorizeRaw(query: Record<string, string>): Promise<{ status: number; location: string | null; text: string }> {
  const res = await fetch(`${t.url}/oauth/authorize?${new URLSearchParams(query).toString()}`, { redirect: 'manual' });
  return { status: res.status, location: res.headers.get('location'), text: await res.text() };
}

interface Started {
  requestId: string;
  state: string;
  verifier: string;
}

/** The partner sends the browser to /oauth/authorize; the service sends it on to the consent page. */
async function startAuthorization(app: Registered, scope = 'event_types:read team:read'): Promise<Started> {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(app.as.authorization_endpoint!);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', app.clientId);
  url.searchParams.set('redirect_uri', REDIRECT);
  url.searchParams.set('scope', scope);
  url.searchParams.set('state', state);
  url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier));
  url.searchParams.set('code_challenge_method', 'S256');
  const res = await fetch(url.toString().replace(ISSUER, t.url), { redirect: 'manual' });
  expect(res.status).toBe(302);
  const location = res.headers.get('location')!;
  expect(location).toMatch(/^\/admin\/oauth\/consent\?request=oar_/);
  return { requestId: new URLSearchParams(location.split('?')[1]).get('request')!, state, verifier };
}

/** Approves as `token` and checks the redirect with the client library (state, iss): the callback's parameters. */
async function approve(app: Registered, started: Started, token = customer.accessToken): Promise<URLSearchParams> {
  const res = await t.http.post(`/v1/oauth/requests/${started.requestId}/approve`, undefined, { token });
  expect(res.status).toBe(200);
  return oauth.validateAuthResponse(app.as, app.client, new URL(res.body.redirectTo as string), started.state);
}

async function exchange(app: Registered, started: Started, callback: URLSearchParams, target: () => TestApp = () => t): Promise<Response> {
  return oauth.authorizationCodeGrantRequest(app.as, app.client, app.auth, callback, REDIRECT, started.verifier, http(target));
}

async function connect(app: Registered, scope?: string): Promise<oauth.TokenEndpointResponse> {
  const started = await startAuthorization(app, scope);
  const callback = await approve(app, started);
  return oauth.processAuthorizationCodeResponse(app.as, app.client, await exchange(app, started, callback));
}

async function tokenRequest(body: Record<string, string>, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${t.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(body).toString(),
  });
}

/** Moves the shared clock; the people sign in again, as their sessions' access tokens live 15 minutes. */
async function moveClock(ms: number): Promise<void> {
  t.clock.advance(ms);
  for (const person of [partner, customer, member]) {
    const res = await t.http.post('/v1/auth/login', { email: person.email, password: person.password });
    expect(res.status).toBe(200);
    person.accessToken = res.body.accessToken as string;
  }
}

async function query<T>(text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: t.databaseUrl });
  await client.connect();
  try {
    return (await client.query(text, values)).rows as T[];
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  t = await startTestApp({ env: { PUBLIC_URL: ISSUER } });
  partner = await registerOwner(t.http, { organizationName: 'Partner Inc' });
  customer = await registerOwner(t.http, { organizationName: 'Customer Co' });
  member = await addMember(t, customer.accessToken, customer.organizationId, 'member');
});

afterAll(async () => {
  await t?.close();
});

describe('discovery (RFC 8414)', () => {
  it('publishes the metadata the client library validates, with issuer = PUBLIC_URL', async () => {
    const as = await discover();
    expect(as).toMatchObject({
      issuer: ISSUER,
      authorization_endpoint: `${ISSUER}/oauth/authorize`,
      token_endpoint: `${ISSUER}/oauth/token`,
      revocation_endpoint: `${ISSUER}/oauth/revoke`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
      authorization_response_iss_parameter_supported: true,
    });
    expect(as.scopes_supported).toEqual(expect.arrayContaining(['bookings:read', 'webhooks:write', 'audit:read']));
  });

  it('Swagger UI can authorize: the document’s oauth2 scheme points here and its redirect page is served', async () => {
    const document = (await (await fetch(`${t.url}/docs-json`)).json()) as {
      components: { securitySchemes: { oauth2: { flows: { authorizationCode: { authorizationUrl: string; tokenUrl: string } } } } };
    };
    expect(document.components.securitySchemes.oauth2.flows.authorizationCode).toMatchObject({
      authorizationUrl: `${ISSUER}/oauth/authorize`,
      tokenUrl: `${ISSUER}/oauth/token`,
    });
    expect((await fetch(`${t.url}/docs/oauth2-redirect.html`)).status).toBe(200);
  });
});

describe('apps', () => {
  it('registers an app, shows the secret once and keeps only its hash', async () => {
    const res = await t.http.post(
      '/v1/oauth-apps',
      { name: 'Shown once', type: 'confidential', redirectUris: [REDIRECT, 'http://localhost:8080/cb'], scopes: ['bookings:read'] },
      { token: partner.accessToken },
    );
    expect(res.status).toBe(201);
    expect(res.body.app).toMatchObject({ id: expect.stringMatching(/^app_/), type: 'confidential', homepageUrl: null, logoUrl: null });
    expect(res.body.clientSecret).toMatch(/^cs_[0-9A-Za-z]{32,}$/);
    const listed = await t.http.get('/v1/oauth-apps', { token: partner.accessToken });
    expect(JSON.stringify(listed.body)).not.toContain(res.body.clientSecret);
    const [row] = await query<{ secret_hash: string }>('SELECT secret_hash FROM oauth_apps WHERE id = $1', [res.body.app.id]);
    expect(row.secret_hash).not.toContain(res.body.clientSecret);
    const got = await t.http.get(`/v1/oauth-apps/${res.body.app.id}`, { token: partner.accessToken });
    expect(got.body.app.redirectUris).toEqual([REDIRECT, 'http://localhost:8080/cb']);
  });

  it('refuses redirect URIs that are not https (or http on a loopback host), or carry a fragment', async () => {
    for (const uri of ['http://partner.example/cb', 'https://partner.example/cb#x', 'partner.example/cb']) {
      const res = await t.http.post(
        '/v1/oauth-apps',
        { name: 'Bad', type: 'public', redirectUris: [uri], scopes: ['bookings:read'] },
        { token: partner.accessToken },
      );
      expect(res.status).toBe(400);
      expect(res.body.details[0]).toMatchObject({ field: 'redirectUris', message: expect.stringContaining(uri) });
    }
  });

  it('is for owners and admins with a session: a member gets 403, an API key 403', async () => {
    const res = await t.http.get('/v1/oauth-apps', { token: member.accessToken });
    expect(res.status).toBe(403);
  });

  it('a public app has no secret and connects with client_id and PKCE only', async () => {
    const app = await registerApp({ type: 'public', name: 'Partner SPA' });
    expect(app.clientSecret).toBeUndefined();
    const tokens = await connect(app);
    expect(tokens.access_token).toMatch(/^oat_/);
  });
});

describe('the flow with a strict third-party client (oauth4webapi)', () => {
  let app: Registered;

  beforeAll(async () => {
    app = await registerApp();
  });

  it('authorizes with PKCE, checks iss, exchanges the code, acts on /v1, refreshes and revokes', async () => {
    const started = await startAuthorization(app);
    const shown = await t.http.get(`/v1/oauth/requests/${started.requestId}`, { token: member.accessToken });
    expect(shown.status).toBe(200);
    expect(shown.body.request).toMatchObject({
      app: { id: app.id, name: 'Partner CRM', homepageUrl: 'https://partner.example', logoUrl: null },
      scopes: ['event_types:read', 'team:read'],
      redirectUri: REDIRECT,
    });

    const callback = await approve(app, started);
    expect(callback.get('iss')).toBe(ISSUER);
    const response = await exchange(app, started, callback);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const tokens = await oauth.processAuthorizationCodeResponse(app.as, app.client, response);
    expect(tokens).toMatchObject({ token_type: 'bearer', expires_in: 3600, scope: 'event_types:read team:read' });
    expect(tokens.access_token).toMatch(/^oat_[0-9A-Za-z]{32,}$/);
    expect(tokens.refresh_token).toMatch(/^ort_[0-9A-Za-z]{32,}$/);
    const stored = await query<{ token_hash: string }>('SELECT token_hash FROM oauth_tokens');
    expect(stored.some((row) => row.token_hash.includes(tokens.access_token))).toBe(false);

    const me = await t.http.get('/v1/users/me', { token: tokens.access_token });
    expect(me.status).toBe(200);
    expect(me.body).toEqual({
      user: null,
      organization: { id: customer.organizationId, name: 'Customer Co', slug: expect.any(String), defaultLocale: 'en' },
      member: null,
      app: { id: app.id, name: 'Partner CRM' },
      scopes: ['event_types:read', 'team:read'],
    });
    const eventTypes = await t.http.get('/v1/event-types', { token: tokens.access_token });
    expect(eventTypes.status).toBe(200);
    expect(eventTypes.headers.get('x-ratelimit-limit')).toBe('600');

    const refreshed = await oauth.processRefreshTokenResponse(
      app.as,
      app.client,
      await oauth.refreshTokenGrantRequest(app.as, app.client, app.auth, tokens.refresh_token!, {
        additionalParameters: { scope: 'team:read' },
        ...http(),
      }),
    );
    expect(refreshed.scope).toBe('team:read');
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    const narrowed = await t.http.get('/v1/event-types', { token: refreshed.access_token });
    expect(narrowed.status).toBe(403);
    expect(narrowed.body.code).toBe('INSUFFICIENT_SCOPE');

    await oauth.processRevocationResponse(await oauth.revocationRequest(app.as, app.client, app.auth, refreshed.access_token, http()));
    const revoked = await t.http.get('/v1/users/me', { token: refreshed.access_token });
    expect(revoked.status).toBe(401);
    expect(revoked.body.code).toBe('UNAUTHORIZED');
    expect(revoked.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    // Revoking the refresh token takes its chain: the first access token too.
    await oauth.processRevocationResponse(await oauth.revocationRequest(app.as, app.client, app.auth, refreshed.refresh_token!, http()));
    expect((await t.http.get('/v1/users/me', { token: tokens.access_token })).status).toBe(401);
    // An unknown token is 200 as well (RFC 7009).
    await oauth.processRevocationResponse(await oauth.revocationRequest(app.as, app.client, app.auth, 'oat_unknown', http()));
  });

  it('the library refuses an authorization response without the right iss', async () => {
    const started = await startAuthorization(app);
    const res = await t.http.post(`/v1/oauth/requests/${started.requestId}/approve`, undefined, { token: customer.accessToken });
    const forged = new URL(res.body.redirectTo as string);
    forged.searchParams.set('iss', 'https://attacker.example');
    expect(() => oauth.validateAuthResponse(app.as, app.client, forged, started.state)).toThrow();
  });

  it('an access token acts as an API key would: JWT-only routes 403 FORBIDDEN, a missing scope 403 INSUFFICIENT_SCOPE', async () => {
    const tokens = await connect(app, 'team:read');
    const jwtOnly = await t.http.get('/v1/api-keys', { token: tokens.access_token });
    expect(jwtOnly.status).toBe(403);
    expect(jwtOnly.body.code).toBe('FORBIDDEN');
    const unscoped = await t.http.get('/v1/bookings', { token: tokens.access_token });
    expect(unscoped.status).toBe(403);
    expect(unscoped.body.code).toBe('INSUFFICIENT_SCOPE');
    const expired = await connect(app, 'team:read');
    await moveClock(3601_000);
    const late = await t.http.get('/v1/users/me', { token: expired.access_token });
    expect(late.status).toBe(401);
    expect(late.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
  });

  it('a change made with an access token names the app as its actor in the audit log', async () => {
    const tokens = await connect(app, 'team:read team:write');
    const res = await t.http.patch(`/v1/organizations/${customer.organizationId}`, { name: 'Customer Co' }, { token: tokens.access_token });
    expect(res.status).toBe(200);
    const log = await t.http.get('/v1/audit-log?action=organization.updated', { token: customer.accessToken });
    expect(log.body.entries[0].actor).toEqual({ type: 'app', id: app.id, label: 'Partner CRM' });
    const grants = await t.http.get('/v1/audit-log?action=oauth_grant.created', { token: customer.accessToken });
    expect(grants.body.entries.some((entry: { details?: { appId?: string } }) => entry.details?.appId === app.id)).toBe(true);
    const widened = await t.http.get('/v1/audit-log?action=oauth_grant.widened', { token: customer.accessToken });
    expect(widened.body.entries[0].changes.scopes.to).toContain('team:write');
    const apps = await t.http.get('/v1/audit-log?action=oauth_app.created', { token: partner.accessToken });
    expect(apps.body.entries.map((entry: { resource: { id: string } }) => entry.resource.id)).toContain(app.id);
  });

  it('approving widens the organization’s one grant to the union of scopes; the grants list shows it with its last use', async () => {
    await connect(app, 'bookings:read');
    const res = await t.http.get('/v1/oauth-grants', { token: customer.accessToken });
    const grants = (res.body.grants as { app: { id: string }; scopes: string[]; lastUsedAt: string | null }[]).filter(
      (g) => g.app.id === app.id,
    );
    expect(grants).toHaveLength(1);
    expect(grants[0].scopes).toEqual(expect.arrayContaining(['bookings:read', 'event_types:read', 'team:read', 'team:write']));
    expect(grants[0].lastUsedAt).not.toBeNull();
  });
});

describe('refusals', () => {
  let app: Registered;

  beforeAll(async () => {
    app = await registerApp({ name: 'Refused' });
  });

  const good = async (overrides: Record<string, string | undefined> = {}): Promise<Record<string, string>> => {
    const verifier = oauth.generateRandomCodeVerifier();
    const query: Record<string, string | undefined> = {
      response_type: 'code',
      client_id: app.clientId,
      redirect_uri: REDIRECT,
      scope: 'team:read',
      state: 'st4te',
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      ...overrides,
    };
    return Object.fromEntries(Object.entries(query).filter((entry): entry is [string, string] => entry[1] !== undefined));
  };

  const redirectedError = (location: string | null): URLSearchParams => {
    expect(location).not.toBeNull();
    expect(location!.startsWith(`${REDIRECT}?`)).toBe(true);
    return new URL(location!).searchParams;
  };

  it('an unknown client_id is a 400 page, never a redirect', async () => {
    const res = await authorizeRaw(await good({ client_id: 'nope' }));
    expect(res.status).toBe(400);
    expect(res.location).toBeNull();
    expect(res.text).toContain('<html');
  });

  it.each([`${REDIRECT}/`, `${REDIRECT}?x=1`, 'https://attacker.example/callback', 'HTTPS://partner.example/callback'])(
    'an unregistered redirect URI (%s) is a 400 page and is never redirected to',
    async (uri) => {
      const res = await authorizeRaw(await good({ redirect_uri: uri }));
      expect(res.status).toBe(400);
      expect(res.location).toBeNull();
    },
  );

  it('PKCE missing → invalid_request back to the app, with state and iss', async () => {
    const res = await authorizeRaw(await good({ code_challenge: undefined, code_challenge_method: undefined }));
    expect(res.status).toBe(302);
    const params = redirectedError(res.location);
    expect(Object.fromEntries(params)).toMatchObject({ error: 'invalid_request', state: 'st4te', iss: ISSUER });
  });

  it('PKCE plain → invalid_request', async () => {
    const res = await authorizeRaw(await good({ code_challenge: oauth.generateRandomCodeVerifier(), code_challenge_method: 'plain' }));
    expect(redirectedError(res.location).get('error')).toBe('invalid_request');
  });

  it('a scope outside the app’s → invalid_scope', async () => {
    const res = await authorizeRaw(await good({ scope: 'team:read webhooks:write' }));
    expect(Object.fromEntries(redirectedError(res.location))).toMatchObject({ error: 'invalid_scope', state: 'st4te', iss: ISSUER });
  });

  it('a response type other than code → unsupported_response_type', async () => {
    const res = await authorizeRaw(await good({ response_type: 'token' }));
    expect(redirectedError(res.location).get('error')).toBe('unsupported_response_type');
  });

  it('a member may not approve (403); denying sends access_denied; a decided request is 404', async () => {
    const started = await startAuthorization(app);
    const approved = await t.http.post(`/v1/oauth/requests/${started.requestId}/approve`, undefined, { token: member.accessToken });
    expect(approved.status).toBe(403);
    const denied = await t.http.post(`/v1/oauth/requests/${started.requestId}/deny`, undefined, { token: member.accessToken });
    expect(denied.status).toBe(200);
    const callback = new URL(denied.body.redirectTo as string);
    expect(Object.fromEntries(callback.searchParams)).toMatchObject({ error: 'access_denied', state: started.state, iss: ISSUER });
    expect(() => oauth.validateAuthResponse(app.as, app.client, callback, started.state)).toThrow(oauth.AuthorizationResponseError);
    const again = await t.http.post(`/v1/oauth/requests/${started.requestId}/approve`, undefined, { token: customer.accessToken });
    expect(again.status).toBe(404);
    expect((await t.http.get(`/v1/oauth/requests/${started.requestId}`, { token: customer.accessToken })).status).toBe(404);
  });

  it('a request lives 10 minutes', async () => {
    const started = await startAuthorization(app);
    await moveClock(10 * 60_000 + 1);
    expect((await t.http.get(`/v1/oauth/requests/${started.requestId}`, { token: customer.accessToken })).status).toBe(404);
  });

  it('a code replayed → invalid_grant, and the tokens issued from it are revoked', async () => {
    const started = await startAuthorization(app);
    const callback = await approve(app, started);
    const first = await oauth.processAuthorizationCodeResponse(app.as, app.client, await exchange(app, started, callback));
    expect((await t.http.get('/v1/users/me', { token: first.access_token })).status).toBe(200);
    const replay = await exchange(app, started, callback);
    expect(replay.status).toBe(400);
    expect(await replay.json()).toMatchObject({ error: 'invalid_grant' });
    expect((await t.http.get('/v1/users/me', { token: first.access_token })).status).toBe(401);
    const refresh = await oauth.refreshTokenGrantRequest(app.as, app.client, app.auth, first.refresh_token!, http());
    expect(await refresh.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('a code is valid 60 seconds', async () => {
    const started = await startAuthorization(app);
    const callback = await approve(app, started);
    await moveClock(61_000);
    const late = await exchange(app, started, callback);
    expect(await late.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('a wrong code_verifier or redirect_uri → invalid_grant', async () => {
    const started = await startAuthorization(app);
    const callback = await approve(app, started);
    const wrongVerifier = await oauth.authorizationCodeGrantRequest(
      app.as,
      app.client,
      app.auth,
      callback,
      REDIRECT,
      oauth.generateRandomCodeVerifier(),
      http(),
    );
    expect(await wrongVerifier.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('a refresh token replayed → invalid_grant, and its whole chain is revoked', async () => {
    const tokens = await connect(app, 'team:read');
    const rotated = await oauth.processRefreshTokenResponse(
      app.as,
      app.client,
      await oauth.refreshTokenGrantRequest(app.as, app.client, app.auth, tokens.refresh_token!, http()),
    );
    expect((await t.http.get('/v1/users/me', { token: rotated.access_token })).status).toBe(200);
    const replay = await oauth.refreshTokenGrantRequest(app.as, app.client, app.auth, tokens.refresh_token!, http());
    expect(replay.status).toBe(400);
    expect(await replay.json()).toMatchObject({ error: 'invalid_grant' });
    expect((await t.http.get('/v1/users/me', { token: rotated.access_token })).status).toBe(401);
    const next = await oauth.refreshTokenGrantRequest(app.as, app.client, app.auth, rotated.refresh_token!, http());
    expect(await next.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('a refresh may not widen the scopes → invalid_scope', async () => {
    const tokens = await connect(app, 'team:read');
    const wider = await oauth.refreshTokenGrantRequest(app.as, app.client, app.auth, tokens.refresh_token!, {
      additionalParameters: { scope: 'team:read team:write' },
      ...http(),
    });
    expect(await wider.json()).toMatchObject({ error: 'invalid_scope' });
  });

  it('a wrong client secret → 401 invalid_client with WWW-Authenticate', async () => {
    const res = await oauth.refreshTokenGrantRequest(app.as, app.client, oauth.ClientSecretBasic('cs_wrong'), 'ort_whatever', http());
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Basic/);
    expect(await res.json()).toMatchObject({ error: 'invalid_client', error_description: expect.any(String) });
    const posted = await tokenRequest({
      grant_type: 'refresh_token',
      refresh_token: 'ort_x',
      client_id: app.clientId,
      client_secret: 'cs_wrong',
    });
    expect(posted.status).toBe(401);
  });

  it('the token endpoint answers RFC 6749 § 5.2 errors: form bodies only, known grant types', async () => {
    const json = await fetch(`${t.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'refresh_token' }),
    });
    expect(json.status).toBe(400);
    expect(await json.json()).toMatchObject({ error: 'invalid_request' });
    const unknown = await tokenRequest({ grant_type: 'password', client_id: app.clientId, client_secret: app.clientSecret! });
    expect(await unknown.json()).toMatchObject({ error: 'unsupported_grant_type' });
    const both = await tokenRequest(
      { grant_type: 'refresh_token', refresh_token: 'ort_x', client_secret: app.clientSecret! },
      { authorization: `Basic ${Buffer.from(`${app.clientId}:${app.clientSecret}`).toString('base64')}` },
    );
    expect(await both.json()).toMatchObject({ error: 'invalid_request' });
  });

  it('a revoked grant stops every token at once', async () => {
    const tokens = await connect(app, 'team:read');
    const grants = await t.http.get('/v1/oauth-grants', { token: customer.accessToken });
    const grant = (grants.body.grants as { id: string; app: { id: string } }[]).find((g) => g.app.id === app.id)!;
    expect(grant.id).toMatch(/^grt_/);
    expect((await t.http.delete(`/v1/oauth-grants/${grant.id}`, { token: customer.accessToken })).status).toBe(204);
    expect((await t.http.get('/v1/users/me', { token: tokens.access_token })).status).toBe(401);
    const refresh = await oauth.refreshTokenGrantRequest(app.as, app.client, app.auth, tokens.refresh_token!, http());
    expect(await refresh.json()).toMatchObject({ error: 'invalid_grant' });
    const log = await t.http.get('/v1/audit-log?action=oauth_grant.revoked', { token: customer.accessToken });
    expect(log.body.entries[0].resource.id).toBe(grant.id);
  });

  it('a rotated secret keeps working 24 hours, then only the new one does', async () => {
    const rotating = await registerApp({ name: 'Rotating' });
    const tokens = await connect(rotating, 'team:read');
    const res = await t.http.post(`/v1/oauth-apps/${rotating.id}/secret`, undefined, { token: partner.accessToken });
    expect(res.status).toBe(201);
    const fresh = oauth.ClientSecretPost(res.body.clientSecret as string);
    let refresh = tokens.refresh_token!;
    const use = async (auth: oauth.ClientAuth): Promise<Response> => {
      const answer = await oauth.refreshTokenGrantRequest(rotating.as, rotating.client, auth, refresh, http());
      if (answer.status === 200) refresh = ((await answer.clone().json()) as { refresh_token: string }).refresh_token;
      return answer;
    };
    expect((await use(rotating.auth)).status).toBe(200);
    await moveClock(24 * 3600_000 - 1000);
    expect((await use(rotating.auth)).status).toBe(200);
    await moveClock(2000);
    const old = await use(rotating.auth);
    expect(old.status).toBe(401);
    expect(await old.json()).toMatchObject({ error: 'invalid_client' });
    expect((await use(fresh)).status).toBe(200);
  });

  it('deleting an app revokes every grant and token of it at once', async () => {
    const doomed = await registerApp({ name: 'Doomed' });
    const tokens = await connect(doomed, 'team:read');
    expect((await t.http.delete(`/v1/oauth-apps/${doomed.id}`, { token: partner.accessToken })).status).toBe(204);
    expect((await t.http.get('/v1/users/me', { token: tokens.access_token })).status).toBe(401);
    const grants = await t.http.get('/v1/oauth-grants', { token: customer.accessToken });
    expect((grants.body.grants as { app: { id: string } }[]).some((g) => g.app.id === doomed.id)).toBe(false);
  });
});

describe('retention', () => {
  it('sweeps tokens a day after they expire, and the requests no token names any more', async () => {
    const app = await registerApp({ name: 'Swept' });
    const tokens = await connect(app, 'team:read');
    const count = async (): Promise<number> =>
      Number((await query<{ n: string }>(`SELECT count(*) AS n FROM oauth_tokens WHERE app_id = $1`, [app.id]))[0].n);
    expect(await count()).toBe(2);
    await moveClock(2 * 24 * 3600_000);
    await t.app.get(PeriodicJobs).runOnce();
    // The access token is gone; the refresh token (90 days) and its request stay.
    expect(await count()).toBe(1);
    await moveClock(90 * 24 * 3600_000);
    await t.app.get(PeriodicJobs).runOnce();
    expect(await count()).toBe(0);
    expect(await query(`SELECT id FROM oauth_authorizations WHERE app_id = $1`, [app.id])).toEqual([]);
    const refresh = await oauth.refreshTokenGrantRequest(app.as, app.client, app.auth, tokens.refresh_token!, http());
    expect(await refresh.json()).toMatchObject({ error: 'invalid_grant' });
  });
});

describe('a code exchanged twice at once on two instances', () => {
  let b: TestApp;

  beforeAll(async () => {
    b = await startTestApp({ databaseUrl: t.databaseUrl, clock: t.clock, env: { PUBLIC_URL: ISSUER } });
  });

  afterAll(async () => {
    await b?.close();
  });

  it('the protocol endpoints are limited per client address (RATE_LIMIT_PUBLIC_PER_MINUTE)', async () => {
    const limited = await startTestApp({
      databaseUrl: t.databaseUrl,
      clock: t.clock,
      env: { PUBLIC_URL: ISSUER, RATE_LIMIT_PUBLIC_PER_MINUTE: '2', RATE_LIMIT_NAMESPACE: `oauth-${Date.now()}` },
    });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) statuses.push((await fetch(`${limited.url}/.well-known/oauth-authorization-server`)).status);
      expect(statuses).toEqual([200, 200, 429]);
    } finally {
      await limited.close();
    }
  });

  it('gives exactly one token set', async () => {
    const app = await registerApp({ name: 'Racing' });
    const started = await startAuthorization(app);
    const callback = await approve(app, started);
    const answers = await Promise.all([exchange(app, started, callback), exchange(app, started, callback, () => b)]);
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([200, 400]);
    const refused = answers.find((answer) => answer.status === 400)!;
    expect(await refused.json()).toMatchObject({ error: 'invalid_grant' });
    const rows = await query<{ kind: string }>(
      `SELECT t.kind FROM oauth_tokens t JOIN oauth_authorizations a ON a.id = t.authorization_id WHERE a.id = $1`,
      [started.requestId],
    );
    expect(rows.map((row) => row.kind).sort()).toEqual(['access', 'refresh']);
  });
});
