import { Injectable } from '@nestjs/common';
import { DataSource, IsNull } from 'typeorm';
import { PageRequest, pageOffset } from '@app/common';
import { ApiKey } from './entities/api-key.entity.js';

@Injectable()
export class ApiKeysRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(key: ApiKey): Promise<void> {
    await this.dataSource.manager.insert(ApiKey, key);
  }

  /** The whole cost of authenticating a key: one lookup on a unique index. */
  async findByHash(keyHash: string): Promise<ApiKey | null> {
    return this.dataSource.manager.findOne(ApiKey, { where: { keyHash } });
  }

  async listActive(organizationId: string, page: PageRequest): Promise<[ApiKey[], number]> {
    return this.dataSource.manager.findAndCount(ApiKey, {
      where: { organizationId, revokedAt: IsNull() },
      order: { createdAt: 'DESC', id: 'ASC' },
      skip: pageOffset(page),
      take: page.limit,
    });
  }

  /** Returns false when no live key of the organization has that id (unknown, foreign or already revoked). */
  async revoke(organizationId: string, id: string, at: Date): Promise<boolean> {
    const result = await this.dataSource.manager.update(ApiKey, { id, organizationId, revokedAt: IsNull() }, { revokedAt: at });
    return (result.affected ?? 0) > 0;
  }

  /** Conditional, so concurrent requests on several instances write at most once a minute. */
  async touch(id: string, at: Date): Promise<void> {
    await this.dataSource.query(
      `UPDATE api_keys SET last_used_at = $2 WHERE id = $1 AND (last_used_at IS NULL OR last_used_at <= $2::timestamptz - interval '1 minute')`,
      [id, at],
    );
  }
}
