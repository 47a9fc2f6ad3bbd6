import { Injectable } from '@nestjs/common';
import { AppError, Clock, randomBase62, sha256, tenantScope, type Principal, type TenantScope } from '@app/common';
import { TransactionHost } from '@app/database';
import { AuditTrail } from '../audit/index.js';
import { GlobalLookups } from '../global-lookups/index.js';
import { type ScimTokenResponse } from './dto/identity.dto.js';
import { IdentityRepository } from './identity.repository.js';
import { ScimError } from './scim-protocol.js';

const TOKEN = /^scim_[0-9A-Za-z]{40}$/;

/** An organization's SCIM token (contract § 21): made and revoked by its owners, presented by its directory. */
@Injectable()
export class ScimTokensService {
  constructor(
    private readonly tx: TransactionHost,
    private readonly repository: IdentityRepository,
    private readonly lookups: GlobalLookups,
    private readonly clock: Clock,
    private readonly audit: AuditTrail,
  ) {}

  async create(principal: Principal, organizationId: string): Promise<ScimTokenResponse> {
    const scope = this.ownOrganization(principal, organizationId);
    const token = `scim_${randomBase62(40)}`;
    this.audit.describe({ resourceId: scope.organizationId });
    await this.tx.transaction(() => this.repository.replaceScimToken(scope, sha256(token), this.clock.now()));
    return { token };
  }

  async revoke(principal: Principal, organizationId: string): Promise<void> {
    const scope = this.ownOrganization(principal, organizationId);
    this.audit.describe({ resourceId: scope.organizationId });
    if (!(await this.tx.transaction(() => this.repository.deleteScimToken(scope)))) throw AppError.notFound('SCIM token');
  }

  /** The organization an `Authorization: Bearer scim_…` header acts for; anything else → 401 in SCIM's shape. */
  async scopeOf(authorization: string | undefined): Promise<TenantScope> {
    const match = /^Bearer\s+(\S+)$/i.exec(authorization ?? '');
    const scope = match && TOKEN.test(match[1]) ? await this.lookups.scimTokenScope(sha256(match[1])) : null;
    if (!scope) throw new ScimError(401, 'Send Authorization: Bearer with the organization’s SCIM token');
    return scope;
  }

  private ownOrganization(principal: Principal, organizationId: string): TenantScope {
    if (principal.organizationId !== organizationId) throw AppError.notFound('Organization');
    return tenantScope(principal);
  }
}
