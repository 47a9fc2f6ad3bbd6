import { Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { AppError, Clock, ErrorCode, newId, type Principal, randomBase62, sha256, tenantScope } from '@app/common';
import { TransactionHost } from '@app/database';
import { AuditTrail } from '../audit/index.js';
import { GlobalLookups } from '../global-lookups/index.js';
import { OAuthGrantListResponse, OAuthRedirectResponse, OAuthRequestResponse } from './dto/oauth.dto.js';
import { OAuthProtocolRepository } from './oauth-protocol.repository.js';
import { ACCESS_TOKEN_PATTERN, CODE_TTL_MS, OAuthProtocolService, withQuery } from './oauth-protocol.service.js';
import { OAuthRepository } from './oauth.repository.js';

const LAST_USED_RESOLUTION_MS = 60_000;

function invalidToken(): AppError {
  return new AppError(ErrorCode.UNAUTHORIZED, 'The access token is invalid, revoked or expired', undefined, {
    'WWW-Authenticate': 'Bearer error="invalid_token"',
  });
}

/**
 * The organization's side: the consent page's request, its decision (a grant created or widened, a code), the
 * organization's grants, and the access tokens that act on /v1 for them.
 */
@Injectable()
export class OAuthGrantsService {
  /** When this instance last wrote each grant's lastUsedAt: requests racing the write do not write again. */
  private readonly touched = new LRUCache<string, number>({ max: 10_000 });

  constructor(
    private readonly repository: OAuthRepository,
    private readonly protocolRows: OAuthProtocolRepository,
    private readonly protocol: OAuthProtocolService,
    private readonly lookups: GlobalLookups,
    private readonly audit: AuditTrail,
    private readonly clock: Clock,
    private readonly tx: TransactionHost,
  ) {}

  async request(id: string): Promise<OAuthRequestResponse> {
    const request = await this.protocolRows.openRequest(id, this.clock.now());
    if (!request) throw AppError.notFound('Authorization request');
    return {
      request: {
        id: request.id,
        app: { id: request.app_id, name: request.app_name, homepageUrl: request.homepage_url, logoUrl: request.logo_url },
        scopes: request.scopes,
        redirectUri: request.redirect_uri,
        expiresAt: request.expires_at.toISOString(),
      },
    };
  }

  /** Approves for the caller's organization: its grant for the app is created or widened, and a code goes back. */
  async approve(principal: Principal, id: string): Promise<OAuthRedirectResponse> {
    const now = this.clock.now();
    const scope = tenantScope(principal);
    return this.tx.transaction(async () => {
      const request = await this.protocolRows.openRequest(id, now, true);
      if (!request) throw AppError.notFound('Authorization request');
      const grant = await this.repository.upsertGrant(scope, {
        id: newId('grt'),
        appId: request.app_id,
        scopes: request.scopes,
        actingUserId: principal.userId,
        at: now,
      });
      const widened = grant.previous !== null && grant.scopes.length > grant.previous.length;
      this.audit.describe({
        action: grant.inserted ? 'oauth_grant.created' : widened ? 'oauth_grant.widened' : 'oauth_grant.approved',
        resourceId: grant.id,
        changes: { scopes: { from: grant.previous, to: grant.scopes } },
        details: { appId: request.app_id, appName: request.app_name },
      });
      const code = randomBase62(43);
      await this.protocolRows.decide(id, {
        decidedAt: now,
        approved: true,
        connectingOrganizationId: principal.organizationId,
        grantId: grant.id,
        codeHash: sha256(code),
        codeExpiresAt: new Date(now.getTime() + CODE_TTL_MS),
      });
      return { redirectTo: withQuery(request.redirect_uri, { code, state: request.state, iss: this.protocol.issuer }) };
    });
  }

  async deny(id: string): Promise<OAuthRedirectResponse> {
    const now = this.clock.now();
    return this.tx.transaction(async () => {
      const request = await this.protocolRows.openRequest(id, now, true);
      if (!request) throw AppError.notFound('Authorization request');
      await this.protocolRows.decide(id, { decidedAt: now, approved: false });
      return {
        redirectTo: withQuery(request.redirect_uri, {
          error: 'access_denied',
          error_description: 'The organization denied the request',
          state: request.state,
          iss: this.protocol.issuer,
        }),
      };
    });
  }

  async list(principal: Principal): Promise<OAuthGrantListResponse> {
    const rows = await this.repository.listGrants(tenantScope(principal));
    return {
      grants: rows.map((row) => ({
        id: row.id,
        app: { id: row.app_id, name: row.app_name, homepageUrl: row.homepage_url, logoUrl: row.logo_url },
        scopes: row.scopes,
        createdAt: row.created_at.toISOString(),
        lastUsedAt: row.last_used_at?.toISOString() ?? null,
      })),
    };
  }

  /** Every token of the grant stops at once: they are deleted with it. */
  async revoke(principal: Principal, id: string): Promise<void> {
    const scope = tenantScope(principal);
    await this.tx.transaction(async () => {
      const grant = await this.repository.findGrant(scope, id);
      if (!grant || !(await this.repository.deleteGrant(scope, id))) throw AppError.notFound('Grant');
      this.audit.describe({ details: { appId: grant.app_id }, changes: { scopes: { from: grant.scopes, to: null } } });
    });
  }

  /**
   * A presented access token, as the principal it acts as: the connecting organization in live mode, within the
   * token's scopes; revocation and expiry read from the row on every call, so they hold at once everywhere.
   */
  async authenticate(presented: string): Promise<Principal> {
    if (!ACCESS_TOKEN_PATTERN.test(presented)) throw invalidToken();
    const token = await this.lookups.appTokenByHash(sha256(presented));
    const now = this.clock.now();
    if (!token || token.kind !== 'access' || token.revokedAt !== null || token.expiresAt.getTime() <= now.getTime()) throw invalidToken();
    const stale = (at: number | undefined): boolean => at === undefined || now.getTime() - at >= LAST_USED_RESOLUTION_MS;
    if (stale(token.grantLastUsedAt?.getTime()) && stale(this.touched.get(token.grantId))) {
      // Off the request's critical path; a lost write only delays lastUsedAt by a minute.
      this.touched.set(token.grantId, now.getTime());
      this.repository.touchGrant(token.scope, token.grantId, now).catch(() => undefined);
    }
    return {
      type: 'app',
      organizationId: token.scope.organizationId,
      userId: token.actingUserId,
      memberId: null,
      role: null,
      label: token.appName,
      app: {
        id: token.appId,
        name: token.appName,
        grantId: token.grantId,
        scopes: token.scopes,
        organization: { name: token.organizationName, slug: token.organizationSlug, defaultLocale: token.organizationDefaultLocale },
      },
      livemode: true,
    };
  }
}
