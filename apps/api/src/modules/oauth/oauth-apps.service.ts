import { Injectable } from '@nestjs/common';
import { AppError, Clock, newId, type Principal, randomBase62, sha256, tenantScope } from '@app/common';
import { TransactionHost } from '@app/database';
import { AuditTrail, changesBetween } from '../audit/index.js';
import {
  CreatedOAuthAppResponse,
  CreateOAuthAppDto,
  OAuthAppListResponse,
  OAuthAppResponse,
  OAuthAppView,
  OAuthSecretResponse,
  UpdateOAuthAppDto,
} from './dto/oauth.dto.js';
import { OAuthApp } from './entities/oauth-app.entity.js';
import { OAuthRepository } from './oauth.repository.js';
import { httpsUrlProblem, redirectUriProblem } from './redirect-uris.js';

/** How long a rotated-out client secret keeps working (contract § 20). */
export const PREVIOUS_SECRET_TTL_MS = 24 * 60 * 60 * 1000;

export function newClientSecret(): string {
  return `cs_${randomBase62(40)}`;
}

function appView(app: OAuthApp): OAuthAppView {
  return {
    id: app.id,
    clientId: app.clientId,
    name: app.name,
    type: app.type,
    redirectUris: app.redirectUris,
    scopes: app.scopes,
    homepageUrl: app.homepageUrl,
    logoUrl: app.logoUrl,
    createdAt: app.createdAt.toISOString(),
  };
}

function checkRedirectUris(uris: readonly string[]): void {
  for (const uri of uris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw AppError.validation('redirectUris', problem);
  }
}

function checkHttps(field: 'homepageUrl' | 'logoUrl', value: string | null | undefined): void {
  if (value === null || value === undefined) return;
  const problem = httpsUrlProblem(value);
  if (problem) throw AppError.validation(field, problem);
}

/** The organization's own partner apps: registration, changes, secret rotation, deletion. */
@Injectable()
export class OAuthAppsService {
  constructor(
    private readonly repository: OAuthRepository,
    private readonly audit: AuditTrail,
    private readonly clock: Clock,
    private readonly tx: TransactionHost,
  ) {}

  async create(principal: Principal, dto: CreateOAuthAppDto): Promise<CreatedOAuthAppResponse> {
    checkRedirectUris(dto.redirectUris);
    checkHttps('homepageUrl', dto.homepageUrl);
    checkHttps('logoUrl', dto.logoUrl);
    const now = this.clock.now();
    const clientSecret = dto.type === 'confidential' ? newClientSecret() : undefined;
    const app = Object.assign(new OAuthApp(), {
      id: newId('app'),
      organizationId: principal.organizationId,
      clientId: randomBase62(32),
      name: dto.name,
      type: dto.type,
      redirectUris: [...dto.redirectUris],
      scopes: [...dto.scopes],
      homepageUrl: dto.homepageUrl ?? null,
      logoUrl: dto.logoUrl ?? null,
      secretHash: clientSecret === undefined ? null : sha256(clientSecret),
      previousSecretHash: null,
      previousSecretExpiresAt: null,
      createdAt: now,
      updatedAt: now,
    } satisfies OAuthApp);
    await this.tx.transaction(() => this.repository.insertApp(tenantScope(principal), app));
    return { app: appView(app), ...(clientSecret === undefined ? {} : { clientSecret }) };
  }

  async list(principal: Principal): Promise<OAuthAppListResponse> {
    return { apps: (await this.repository.listApps(tenantScope(principal))).map(appView) };
  }

  async get(principal: Principal, id: string): Promise<OAuthAppResponse> {
    const app = await this.repository.findApp(tenantScope(principal), id);
    if (!app) throw AppError.notFound('App');
    return { app: appView(app) };
  }

  async update(principal: Principal, id: string, dto: UpdateOAuthAppDto): Promise<OAuthAppResponse> {
    const scope = tenantScope(principal);
    if (dto.redirectUris !== undefined) checkRedirectUris(dto.redirectUris);
    checkHttps('homepageUrl', dto.homepageUrl);
    checkHttps('logoUrl', dto.logoUrl);
    return this.tx.transaction(async () => {
      const app = await this.repository.findApp(scope, id);
      if (!app) throw AppError.notFound('App');
      const changes: Partial<OAuthApp> = {};
      if (dto.name !== undefined) changes.name = dto.name;
      if (dto.redirectUris !== undefined) changes.redirectUris = [...dto.redirectUris];
      if (dto.scopes !== undefined) changes.scopes = [...dto.scopes];
      if (dto.homepageUrl !== undefined) changes.homepageUrl = dto.homepageUrl;
      if (dto.logoUrl !== undefined) changes.logoUrl = dto.logoUrl;
      this.audit.describe({ changes: changesBetween(app, changes) });
      if (Object.keys(changes).length > 0) {
        changes.updatedAt = this.clock.now();
        if (!(await this.repository.updateApp(scope, id, changes))) throw AppError.notFound('App');
      }
      return { app: appView(Object.assign(app, changes)) };
    });
  }

  /** Deleting an app revokes every grant and token of it at once (they go with it). */
  async remove(principal: Principal, id: string): Promise<void> {
    const deleted = await this.tx.transaction(() => this.repository.deleteApp(tenantScope(principal), id));
    if (!deleted) throw AppError.notFound('App');
  }

  /** A new secret; the one it replaces keeps working 24 hours, so the partner can deploy the new one. */
  async rotateSecret(principal: Principal, id: string): Promise<OAuthSecretResponse> {
    const scope = tenantScope(principal);
    return this.tx.transaction(async () => {
      const app = await this.repository.findApp(scope, id);
      if (!app) throw AppError.notFound('App');
      if (app.type !== 'confidential') throw AppError.validation('type', 'A public app has no client secret');
      const clientSecret = newClientSecret();
      const now = this.clock.now();
      const rotated = await this.repository.updateApp(scope, id, {
        secretHash: sha256(clientSecret),
        previousSecretHash: app.secretHash,
        previousSecretExpiresAt: new Date(now.getTime() + PREVIOUS_SECRET_TTL_MS),
        updatedAt: now,
      });
      if (!rotated) throw AppError.notFound('App');
      return { clientSecret };
    });
  }
}
