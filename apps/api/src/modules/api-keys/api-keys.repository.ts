import { Injectable } from '@nestjs/common';
import { IsNull } from 'typeorm';
import { PageRequest, pageOffset, type TenantScope } from '@app/common';
import { ApiKey } from './entities/api-key.entity.js';
import { TransactionHost } from '@app/database';

@Injectable()
export class ApiKeysRepository {
  constructor(private readonly tx: TransactionHost) {}

  async insert(scope: TenantScope, key: ApiKey): Promise<void> {
    await this.tx.transactional.insert(ApiKey, { ...key, organizationId: scope.organizationId });
  }

  async listActive(scope: TenantScope, page: PageRequest): Promise<[ApiKey[], number]> {
    return this.tx.reads.findAndCount(ApiKey, {
      where: { organizationId: scope.organizationId, revokedAt: IsNull() },
      order: { createdAt: 'DESC', id: 'ASC' },
      skip: pageOffset(page),
      take: page.limit,
    });
  }

  /** A key of the organization that is not revoked. */
  async findActive(scope: TenantScope, id: string): Promise<ApiKey | null> {
    return this.tx.reads.findOne(ApiKey, { where: { id, organizationId: scope.organizationId, revokedAt: IsNull() } });
  }

  /** Returns false when the key was revoked meanwhile (or is not the organization's). */
  async update(
    scope: TenantScope,
    id: string,
    changes: Partial<Pick<ApiKey, 'name' | 'allowedOrigins' | 'eventTypeIds' | 'routingFormIds'>>,
  ): Promise<boolean> {
    const result = await this.tx.transactional.update(ApiKey, { id, organizationId: scope.organizationId, revokedAt: IsNull() }, changes);
    return (result.affected ?? 0) > 0;
  }

  /** Returns false when no live key of the organization has that id (unknown, foreign or already revoked). */
  async revoke(scope: TenantScope, id: string, at: Date): Promise<boolean> {
    const result = await this.tx.transactional.update(
      ApiKey,
      { id, organizationId: scope.organizationId, revokedAt: IsNull() },
      { revokedAt: at },
    );
    return (result.affected ?? 0) > 0;
  }

  /** The ids of the organization's publishable keys, revoked ones and both modes included. */
  async publishableIds(scope: TenantScope): Promise<string[]> {
    const rows: { id: string }[] = await this.tx.reads.query(
      `SELECT id FROM api_keys WHERE organization_id = $1 AND kind = 'publishable'`,
      [scope.organizationId],
    );
    return rows.map((row) => row.id);
  }

  /** Conditional, so concurrent requests on several instances write at most once a minute. */
  async touch(scope: TenantScope, id: string, at: Date): Promise<void> {
    await this.tx.outside('a key’s last use is bookkeeping, never part of the request’s transaction').query(
      `UPDATE api_keys SET last_used_at = $3
        WHERE organization_id = $1 AND id = $2 AND (last_used_at IS NULL OR last_used_at <= $3::timestamptz - interval '1 minute')`,
      [scope.organizationId, id, at],
    );
  }
}
