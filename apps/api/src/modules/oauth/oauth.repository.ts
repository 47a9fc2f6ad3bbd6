import { Injectable } from '@nestjs/common';
import type { Scope, TenantScope } from '@app/common';
import { TransactionHost } from '@app/database';
import { OAuthApp } from './entities/oauth-app.entity.js';

export interface GrantRow {
  id: string;
  scopes: Scope[];
  created_at: Date;
  last_used_at: Date | null;
  app_id: string;
  app_name: string;
  homepage_url: string | null;
  logo_url: string | null;
}

export interface UpsertedGrant {
  id: string;
  scopes: Scope[];
  inserted: boolean;
  previous: Scope[] | null;
}

/** The organization's own apps (as their registrant) and grants (as the connecting organization). */
@Injectable()
export class OAuthRepository {
  constructor(private readonly tx: TransactionHost) {}

  async insertApp(scope: TenantScope, app: OAuthApp): Promise<void> {
    await this.tx.transactional.insert(OAuthApp, { ...app, organizationId: scope.organizationId });
  }

  listApps(scope: TenantScope): Promise<OAuthApp[]> {
    return this.tx.reads.find(OAuthApp, { where: { organizationId: scope.organizationId }, order: { createdAt: 'DESC', id: 'ASC' } });
  }

  findApp(scope: TenantScope, id: string): Promise<OAuthApp | null> {
    return this.tx.reads.findOne(OAuthApp, { where: { id, organizationId: scope.organizationId } });
  }

  async updateApp(scope: TenantScope, id: string, changes: Partial<OAuthApp>): Promise<boolean> {
    const result = await this.tx.transactional.update(OAuthApp, { id, organizationId: scope.organizationId }, changes);
    return (result.affected ?? 0) > 0;
  }

  /** The app's requests, grants (in every organization) and their tokens go with it (foreign keys, ON DELETE CASCADE). */
  async deleteApp(scope: TenantScope, id: string): Promise<boolean> {
    const result = await this.tx.transactional.delete(OAuthApp, { id, organizationId: scope.organizationId });
    return (result.affected ?? 0) > 0;
  }

  /**
   * The organization's grant for the app, created or widened to the union of its scopes and `scopes` in one statement
   * (two approvals at once end in one grant). `previous` is the scopes before, null when it is new.
   */
  async upsertGrant(
    scope: TenantScope,
    grant: { id: string; appId: string; scopes: Scope[]; actingUserId: string; at: Date },
  ): Promise<UpsertedGrant> {
    const rows: UpsertedGrant[] = await this.tx.transactional.query(
      `WITH before AS (SELECT scopes FROM oauth_grants WHERE organization_id = $1 AND app_id = $3)
       INSERT INTO oauth_grants (id, organization_id, app_id, scopes, acting_user_id, created_at, updated_at)
       VALUES ($2, $1, $3, $4::text[], $5, $6, $6)
       ON CONFLICT (organization_id, app_id) DO UPDATE
          SET scopes = ARRAY(SELECT DISTINCT s FROM unnest(oauth_grants.scopes || EXCLUDED.scopes) s ORDER BY s),
              acting_user_id = EXCLUDED.acting_user_id, updated_at = EXCLUDED.updated_at
       RETURNING id, scopes, (xmax = 0) AS inserted, (SELECT scopes FROM before) AS previous`,
      [scope.organizationId, grant.id, grant.appId, grant.scopes, grant.actingUserId, grant.at],
    );
    return rows[0];
  }

  listGrants(scope: TenantScope): Promise<GrantRow[]> {
    return this.tx.reads.query(
      `SELECT g.id, g.scopes, g.created_at, g.last_used_at, a.id AS app_id, a.name AS app_name, a.homepage_url, a.logo_url
         FROM oauth_grants g JOIN oauth_apps a ON a.id = g.app_id
        WHERE g.organization_id = $1
        ORDER BY g.created_at DESC, g.id`,
      [scope.organizationId],
    );
  }

  async findGrant(scope: TenantScope, id: string): Promise<{ id: string; app_id: string; scopes: Scope[] } | null> {
    const rows: { id: string; app_id: string; scopes: Scope[] }[] = await this.tx.reads.query(
      `SELECT id, app_id, scopes FROM oauth_grants WHERE organization_id = $1 AND id = $2`,
      [scope.organizationId, id],
    );
    return rows[0] ?? null;
  }

  /** Its tokens go with it (ON DELETE CASCADE): every one stops at once. */
  async deleteGrant(scope: TenantScope, id: string): Promise<boolean> {
    // A DELETE … RETURNING answers [rows, count] through TypeORM's pg driver.
    const [, count]: [unknown[], number] = await this.tx.transactional.query(
      `DELETE FROM oauth_grants WHERE organization_id = $1 AND id = $2 RETURNING id`,
      [scope.organizationId, id],
    );
    return count > 0;
  }

  /** Conditional, so concurrent requests on several instances write at most once a minute. */
  async touchGrant(scope: TenantScope, id: string, at: Date): Promise<void> {
    await this.tx.outside('a grant’s last use is bookkeeping, never part of the request’s transaction').query(
      `UPDATE oauth_grants SET last_used_at = $3
        WHERE organization_id = $1 AND id = $2 AND (last_used_at IS NULL OR last_used_at <= $3::timestamptz - interval '1 minute')`,
      [scope.organizationId, id, at],
    );
  }
}
