import { Injectable } from '@nestjs/common';
import { DataSource, IsNull } from 'typeorm';
import { type KeyMode, PageRequest, pageOffset, type Scope } from '@app/common';
import { ApiKey } from './entities/api-key.entity.js';
import { TransactionHost } from '@app/database';

interface ApiKeyRow {
  id: string;
  organization_id: string;
  created_by_user_id: string;
  name: string;
  key_prefix: string;
  key_hash: string;
  scopes: Scope[];
  rate_limit_per_minute: number;
  mode: KeyMode;
  expires_at: Date | null;
  last_used_at: Date | null;
  revoked_at: Date | null;
  created_at: Date;
}

@Injectable()
export class ApiKeysRepository {
  constructor(
    private readonly tx: TransactionHost,
    private readonly dataSource: DataSource,
  ) {}

  async insert(key: ApiKey): Promise<void> {
    await this.tx.manager.insert(ApiKey, key);
  }

  /**
   * The whole cost of authenticating a key: one lookup on a unique index. Plain SQL, because this
   * runs on every API-key request and TypeORM's find builds its query anew each time.
   */
  async findByHash(keyHash: string): Promise<ApiKey | null> {
    const rows: ApiKeyRow[] = await this.dataSource.query(
      `SELECT id, organization_id, created_by_user_id, name, key_prefix, key_hash, scopes, rate_limit_per_minute, mode,
              expires_at, last_used_at, revoked_at, created_at
         FROM api_keys WHERE key_hash = $1`,
      [keyHash],
    );
    const row = rows[0];
    if (!row) return null;
    return Object.assign(new ApiKey(), {
      id: row.id,
      organizationId: row.organization_id,
      createdByUserId: row.created_by_user_id,
      name: row.name,
      keyPrefix: row.key_prefix,
      keyHash: row.key_hash,
      scopes: row.scopes,
      rateLimitPerMinute: row.rate_limit_per_minute,
      mode: row.mode,
      expiresAt: row.expires_at,
      lastUsedAt: row.last_used_at,
      revokedAt: row.revoked_at,
      createdAt: row.created_at,
    } satisfies ApiKey);
  }

  async listActive(organizationId: string, page: PageRequest): Promise<[ApiKey[], number]> {
    return this.tx.manager.findAndCount(ApiKey, {
      where: { organizationId, revokedAt: IsNull() },
      order: { createdAt: 'DESC', id: 'ASC' },
      skip: pageOffset(page),
      take: page.limit,
    });
  }

  /** Returns false when no live key of the organization has that id (unknown, foreign or already revoked). */
  async revoke(organizationId: string, id: string, at: Date): Promise<boolean> {
    const result = await this.tx.manager.update(ApiKey, { id, organizationId, revokedAt: IsNull() }, { revokedAt: at });
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
