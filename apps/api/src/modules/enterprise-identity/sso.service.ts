import { Injectable, type OnModuleInit } from '@nestjs/common';
import * as oidc from 'openid-client';
import {
  AppConfig,
  AppError,
  Clock,
  ErrorCode,
  isUniqueViolation,
  randomBase62,
  Role,
  SecretSealer,
  sha256,
  tenantScope,
  UnsafeUrlError,
  type Principal,
  type TenantScope,
} from '@app/common';
import { TransactionHost } from '@app/database';
import { AuditTrail, changesBetween } from '../audit/index.js';
import { DirectoryUsers, LoginService, SessionsService, type TokensResponse } from '../auth/index.js';
import { GlobalLookups } from '../global-lookups/index.js';
import { type PutSsoDto, type SsoResponse, type SsoRole, type SsoView } from './dto/identity.dto.js';
import { SsoConnection } from './entities/sso-connection.entity.js';
import { SsoLogin } from './entities/sso-login.entity.js';
import { IdentityRepository } from './identity.repository.js';
import { guardedFetch } from './oidc-http.js';
import { ProvisioningService } from './provisioning.service.js';

/** How long a started sign-in may take at the provider. */
const LOGIN_TTL_MS = 10 * 60 * 1000;
/** A provider's keys are kept this long (oauth4webapi drops them at 300 s); an unknown `kid` is fetched once. */
const JWKS_REFETCH_AFTER_S = 60;

/** A refused single sign-on: the reason goes to the audit entry, the browser to the sign-in page. */
export class SsoFailure extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

function emailDomain(email: string): string {
  return email.slice(email.lastIndexOf('@') + 1).toLowerCase();
}

/**
 * Single sign-on through an organization's OpenID Connect provider (contract § 21): its configuration, the start
 * (PKCE S256, state, nonce) and the callback, whose ID token openid-client checks (signature from the provider's
 * JWKS, iss, aud, exp, nonce); then the email's domain, just-in-time provisioning and a console session.
 */
@Injectable()
export class SsoService implements OnModuleInit {
  private readonly fetch: ReturnType<typeof guardedFetch>;
  /** The provider's keys by organization and issuer, with when they were fetched (epoch seconds). */
  private readonly jwks = new Map<string, oidc.ExportedJWKSCache>();

  constructor(
    private readonly tx: TransactionHost,
    private readonly repository: IdentityRepository,
    private readonly lookups: GlobalLookups,
    private readonly sealer: SecretSealer,
    private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly audit: AuditTrail,
    private readonly users: DirectoryUsers,
    private readonly sessions: SessionsService,
    private readonly logins: LoginService,
    private readonly provisioning: ProvisioningService,
  ) {
    this.fetch = guardedFetch(config.ssoAllowPrivateUrls);
  }

  onModuleInit(): void {
    // Enforcement (contract § 21): a password sign-in for a claimed domain is refused, the organization's owners excepted.
    this.logins.onPasswordSignIn(async (email, membership) => {
      if (membership.role === Role.Owner) return;
      const owner = await this.lookups.ssoDomainOwner(emailDomain(email));
      if (!owner || owner.organizationId !== membership.scope.organizationId) return;
      const connection = await this.repository.findConnection(owner);
      if (connection?.enforce)
        throw new AppError(ErrorCode.SSO_REQUIRED, 'This organization signs in through its identity provider: use single sign-on');
    });
  }

  get redirectUri(): string {
    return `${this.config.publicUrl}/v1/auth/sso/callback`;
  }

  async show(principal: Principal, organizationId: string): Promise<SsoResponse> {
    const scope = this.ownOrganization(principal, organizationId);
    const connection = await this.repository.findConnection(scope);
    if (!connection) throw AppError.notFound('Single sign-on configuration');
    return { sso: this.view(connection, await this.repository.domainsOf(scope)) };
  }

  async save(principal: Principal, organizationId: string, dto: PutSsoDto): Promise<SsoResponse> {
    const scope = this.ownOrganization(principal, organizationId);
    const issuer = this.checkedIssuer(dto.issuer);
    const discovery = await this.discover(issuer, dto.clientId, dto.clientSecret);
    const now = this.clock.now();
    const before = await this.repository.findConnection(scope);
    const domains = [...new Set(dto.domains)].sort();
    const connection = Object.assign(new SsoConnection(), {
      organizationId: scope.organizationId,
      issuer: dto.issuer,
      clientId: dto.clientId,
      clientSecret: this.sealer.seal(dto.clientSecret, `sso:${scope.organizationId}`),
      enforce: dto.enforce ?? false,
      defaultRole: dto.defaultRole ?? 'member',
      discovery,
      createdAt: before?.createdAt ?? now,
      updatedAt: now,
    } satisfies SsoConnection);
    this.audit.describe({
      resourceId: scope.organizationId,
      changes: changesBetween(
        {
          issuer: before?.issuer ?? null,
          clientId: before?.clientId ?? null,
          enforce: before?.enforce ?? null,
          defaultRole: before?.defaultRole ?? null,
        },
        { issuer: connection.issuer, clientId: connection.clientId, enforce: connection.enforce, defaultRole: connection.defaultRole },
      ),
    });
    try {
      await this.tx.transaction(async () => {
        await this.tx.keepErrorDetailsOutOfLog();
        await this.repository.saveConnection(scope, connection, domains);
      });
    } catch (error) {
      if (isUniqueViolation(error, 'sso_domains_domain_key'))
        throw new AppError(ErrorCode.DOMAIN_TAKEN, 'Another organization already claims one of these domains', [
          { field: 'domains', message: 'one of these domains is claimed by another organization' },
        ]);
      throw error;
    }
    this.jwks.delete(scope.organizationId);
    return { sso: this.view(connection, domains) };
  }

  async remove(principal: Principal, organizationId: string): Promise<void> {
    const scope = this.ownOrganization(principal, organizationId);
    this.audit.describe({ resourceId: scope.organizationId });
    const deleted = await this.tx.transaction(() => this.repository.deleteConnection(scope));
    if (!deleted) throw AppError.notFound('Single sign-on configuration');
    this.jwks.delete(scope.organizationId);
  }

  /** The provider's authorization URL for this email's organization (302 there). */
  async start(email: string): Promise<string> {
    const scope = await this.lookups.ssoDomainOwner(emailDomain(email));
    const connection = scope ? await this.repository.findConnection(scope) : null;
    if (!scope || !connection)
      throw new AppError(ErrorCode.SSO_NOT_CONFIGURED, 'No organization signs in with single sign-on for this email’s domain');
    const client = this.client(connection);
    const now = this.clock.now();
    const secret = randomBase62(43);
    const login = Object.assign(new SsoLogin(), {
      id: `ssl_${randomBase62(24)}`,
      organizationId: scope.organizationId,
      secretHash: sha256(secret),
      codeVerifier: oidc.randomPKCECodeVerifier(),
      nonce: oidc.randomNonce(),
      createdAt: now,
      expiresAt: new Date(now.getTime() + LOGIN_TTL_MS),
      usedAt: null,
    } satisfies SsoLogin);
    await this.tx.transaction(() => this.repository.insertLogin(scope, login));
    return oidc
      .buildAuthorizationUrl(client, {
        redirect_uri: this.redirectUri,
        response_type: 'code',
        scope: 'openid email profile',
        state: `${login.id}.${secret}`,
        nonce: login.nonce,
        code_challenge: await oidc.calculatePKCECodeChallenge(login.codeVerifier),
        code_challenge_method: 'S256',
        login_hint: email,
      })
      .toString();
  }

  /**
   * The provider's answer: the sign-in is spent first (a replayed state finds nothing), then the code is exchanged
   * and the ID token checked, then the person signed in (provisioned on first sign-in) in one transaction with the
   * audit entry. Any refusal throws SsoFailure with its reason (recorded as `session.failed`), nothing created.
   */
  async callback(query: string, userAgent: string | undefined): Promise<TokensResponse> {
    try {
      return await this.completeSignIn(query, userAgent);
    } catch (error) {
      const reason = error instanceof SsoFailure ? error.reason : 'internal_error';
      this.audit.describe({ details: { reason } });
      throw error instanceof SsoFailure ? error : new SsoFailure(reason);
    }
  }

  private async completeSignIn(query: string, userAgent: string | undefined): Promise<TokensResponse> {
    const params = new URLSearchParams(query);
    const state = params.get('state') ?? '';
    const match = /^(ssl_[0-9A-Za-z]{24})\.([0-9A-Za-z]{43})$/.exec(state);
    if (!match) throw new SsoFailure('invalid_state');
    const scope = await this.lookups.ssoLoginScope(match[1]);
    if (!scope) throw new SsoFailure('invalid_state');
    const login = await this.audit.unrecorded(() =>
      this.tx.transaction(() => this.repository.consumeLogin(scope, match[1], sha256(match[2]), this.clock.now())),
    );
    if (!login) throw new SsoFailure('invalid_state');
    if (params.has('error')) throw new SsoFailure(`provider_error: ${params.get('error')!.slice(0, 100)}`);
    const connection = await this.repository.findConnection(scope);
    if (!connection) throw new SsoFailure('not_configured');
    const email = await this.verifiedEmail(scope, connection, params, login);
    const domains = await this.repository.domainsOf(scope);
    if (!domains.includes(emailDomain(email))) throw new SsoFailure('foreign_domain');
    return this.signIn(scope, connection, email, userAgent);
  }

  private async verifiedEmail(scope: TenantScope, connection: SsoConnection, params: URLSearchParams, login: SsoLogin): Promise<string> {
    const client = this.client(connection);
    const cached = this.jwks.get(scope.organizationId);
    const nowS = Math.floor(Date.now() / 1000);
    // Dated at least a minute back: a token signed with a key not among them makes openid-client fetch the keys again, once.
    if (cached && nowS - cached.uat < 300 - JWKS_REFETCH_AFTER_S)
      oidc.setJwksCache(client, { ...cached, uat: Math.min(cached.uat, nowS - JWKS_REFETCH_AFTER_S) });
    const callbackUrl = new URL(this.redirectUri);
    callbackUrl.search = params.toString();
    let claims: { email?: unknown; email_verified?: unknown; [claim: string]: unknown } | undefined;
    try {
      const tokens = await oidc.authorizationCodeGrant(client, callbackUrl, {
        pkceCodeVerifier: login.codeVerifier,
        expectedState: params.get('state')!,
        expectedNonce: login.nonce,
        idTokenExpected: true,
      });
      const idToken = tokens.claims();
      claims = idToken;
      // A provider that keeps the email out of the ID token (OpenID Connect's default when an access token is issued)
      // answers it at its userinfo endpoint, for the ID token's subject.
      if (idToken && typeof idToken.email !== 'string' && tokens.access_token && client.serverMetadata().userinfo_endpoint)
        claims = await oidc.fetchUserInfo(client, tokens.access_token, idToken.sub);
    } catch (error) {
      throw new SsoFailure(`id_token_refused: ${describe(error)}`);
    } finally {
      const fresh = oidc.getJwksCache(client);
      if (fresh) this.jwks.set(scope.organizationId, fresh);
    }
    if (!claims) throw new SsoFailure('id_token_missing');
    if (claims.email_verified === false) throw new SsoFailure('email_unverified');
    const email = typeof claims.email === 'string' ? claims.email.trim().toLowerCase() : '';
    if (!/^[^@\s]+@[^@\s]+$/.test(email) || email.length > 254) throw new SsoFailure('email_missing');
    return email;
  }

  private async signIn(
    scope: TenantScope,
    connection: SsoConnection,
    email: string,
    userAgent: string | undefined,
  ): Promise<TokensResponse> {
    try {
      return await this.tx.transaction(async () => {
        await this.tx.keepErrorDetailsOutOfLog();
        let user = await this.users.findByEmail(email);
        if (user) this.audit.describe({ actor: { type: 'user', id: user.id, label: user.email } });
        const membership = user ? await this.lookups.activeMembershipOf(user.id) : null;
        let memberId: string;
        if (membership) {
          if (membership.scope.organizationId !== scope.organizationId) throw new SsoFailure('other_organization');
          memberId = membership.memberId;
        } else {
          if (user && (await this.repository.findScimUser(scope, user.id))?.active === false) throw new SsoFailure('deactivated');
          user ??= await this.users.create({ email, firstName: null, lastName: null });
          this.audit.describe({ actor: { type: 'user', id: user.id, label: user.email }, details: { provisioned: true } });
          memberId = await this.provisioning.provision(scope, user, connection.defaultRole);
        }
        return this.sessions.startSession(user!.id, memberId, scope, userAgent);
      });
    } catch (error) {
      if (isUniqueViolation(error, 'users_email_key') || isUniqueViolation(error, 'members_user_id_key'))
        throw new SsoFailure('other_organization');
      if (error instanceof AppError) throw new SsoFailure(error.code.toLowerCase());
      throw error;
    }
  }

  private client(connection: SsoConnection): oidc.Configuration {
    const secret = this.sealer.open(connection.clientSecret, `sso:${connection.organizationId}`);
    const skew = Math.round((this.clock.now().getTime() - Date.now()) / 1000);
    const client = new oidc.Configuration(
      structuredClone(connection.discovery) as oidc.ServerMetadata,
      connection.clientId,
      { client_secret: secret, [oidc.clockSkew]: skew },
      oidc.ClientSecretBasic(secret),
    );
    client[oidc.customFetch] = this.fetch;
    // The ID token's signature is checked with the provider's JWKS even though it came straight from the token endpoint.
    oidc.enableNonRepudiationChecks(client);
    if (new URL(connection.issuer).protocol === 'http:') oidc.allowInsecureRequests(client);
    return client;
  }

  /** https, or http outside production (contract § 21). */
  private checkedIssuer(raw: string): URL {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw AppError.validation('issuer', 'issuer must be an absolute https URL');
    }
    const allowed = this.config.isProduction ? ['https:'] : ['https:', 'http:'];
    if (!allowed.includes(url.protocol) || url.username || url.password || url.hash)
      throw AppError.validation('issuer', 'issuer must be an absolute https URL without credentials or fragment');
    return url;
  }

  /** The discovery document, read through the outbound rules and checked (its issuer must be the one given). */
  private async discover(issuer: URL, clientId: string, clientSecret: string): Promise<Record<string, unknown>> {
    try {
      const client = await oidc.discovery(issuer, clientId, clientSecret, undefined, {
        [oidc.customFetch]: this.fetch,
        ...(issuer.protocol === 'http:' ? { execute: [oidc.allowInsecureRequests] } : {}),
        timeout: 10,
      });
      const metadata = client.serverMetadata();
      if (!metadata.authorization_endpoint || !metadata.token_endpoint || !metadata.jwks_uri)
        throw AppError.validation('issuer', 'the discovery document names no authorization endpoint, token endpoint or JWKS');
      return { ...metadata };
    } catch (error) {
      if (error instanceof AppError) throw error;
      // openid-client wraps what its fetch threw.
      let cause: unknown = error;
      for (let depth = 0; cause instanceof Error && depth < 5; depth++, cause = cause.cause)
        if (cause instanceof UnsafeUrlError) throw AppError.validation('issuer', cause.message);
      throw AppError.validation('issuer', `the issuer’s discovery document could not be read or does not match: ${describe(error)}`);
    }
  }

  private ownOrganization(principal: Principal, organizationId: string): TenantScope {
    if (principal.organizationId !== organizationId) throw AppError.notFound('Organization');
    return tenantScope(principal);
  }

  private view(connection: SsoConnection, domains: string[]): SsoView {
    return {
      issuer: connection.issuer,
      clientId: connection.clientId,
      domains,
      enforce: connection.enforce,
      defaultRole: connection.defaultRole as SsoRole,
      redirectUri: this.redirectUri,
      updatedAt: connection.updatedAt.toISOString(),
    };
  }
}

function describe(error: unknown): string {
  if (error instanceof Error) return (error.message || error.name).slice(0, 200);
  return 'error';
}
