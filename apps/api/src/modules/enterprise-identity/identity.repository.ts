import { Injectable } from '@nestjs/common';
import type { TenantScope } from '@app/common';
import { TransactionHost } from '@app/database';
import { ScimToken } from './entities/scim-token.entity.js';
import { ScimUser } from './entities/scim-user.entity.js';
import { SsoConnection } from './entities/sso-connection.entity.js';
import { SsoDomain } from './entities/sso-domain.entity.js';
import { SsoLogin } from './entities/sso-login.entity.js';

/** The only place that touches TypeORM for single sign-on and SCIM; every statement is scoped by organization. */
@Injectable()
export class IdentityRepository {
  constructor(private readonly tx: TransactionHost) {}

  async findConnection(scope: TenantScope): Promise<SsoConnection | null> {
    return this.tx.reads.findOne(SsoConnection, { where: { organizationId: scope.organizationId } });
  }

  async domainsOf(scope: TenantScope): Promise<string[]> {
    const rows = await this.tx.reads.find(SsoDomain, { where: { organizationId: scope.organizationId }, order: { domain: 'ASC' } });
    return rows.map((row) => row.domain);
  }

  /** The configuration and its domains; a domain another organization holds fails on the primary key. */
  async saveConnection(scope: TenantScope, connection: SsoConnection, domains: readonly string[]): Promise<void> {
    await this.tx.transactional.upsert(SsoConnection, { ...connection, organizationId: scope.organizationId } as never, ['organizationId']);
    await this.tx.transactional.delete(SsoDomain, { organizationId: scope.organizationId });
    if (domains.length > 0)
      await this.tx.transactional.insert(
        SsoDomain,
        domains.map((domain) => ({ domain, organizationId: scope.organizationId })),
      );
  }

  async deleteConnection(scope: TenantScope): Promise<boolean> {
    await this.tx.transactional.delete(SsoDomain, { organizationId: scope.organizationId });
    const result = await this.tx.transactional.delete(SsoConnection, { organizationId: scope.organizationId });
    return (result.affected ?? 0) > 0;
  }

  /** A new sign-on in progress; the organization's expired ones go at the same time. */
  async insertLogin(scope: TenantScope, login: SsoLogin): Promise<void> {
    await this.tx.transactional.query(`DELETE FROM sso_logins WHERE organization_id = $1 AND expires_at <= $2`, [
      scope.organizationId,
      login.createdAt,
    ]);
    await this.tx.transactional.insert(SsoLogin, { ...login, organizationId: scope.organizationId });
  }

  /**
   * Spends a sign-on in progress: only once, only with its secret, only before it expires. A spent one stays until it
   * expires, so that a replay of its state is known (and audited) as one.
   */
  async consumeLogin(scope: TenantScope, id: string, secretHash: string, now: Date): Promise<SsoLogin | null> {
    const [rows]: [{ code_verifier: string; nonce: string; secret_hash: string; expires_at: Date }[], number] =
      await this.tx.transactional.query(
        `UPDATE sso_logins SET used_at = $3 WHERE organization_id = $1 AND id = $2 AND used_at IS NULL
        RETURNING code_verifier, nonce, secret_hash, expires_at`,
        [scope.organizationId, id, now],
      );
    const row = rows[0];
    if (!row || row.secret_hash !== secretHash || row.expires_at.getTime() <= now.getTime()) return null;
    return Object.assign(new SsoLogin(), {
      id,
      organizationId: scope.organizationId,
      secretHash,
      codeVerifier: row.code_verifier,
      nonce: row.nonce,
      createdAt: now,
      expiresAt: row.expires_at,
      usedAt: now,
    });
  }

  /** The organization's one token: a new one replaces (and so revokes) the previous one. */
  async replaceScimToken(scope: TenantScope, tokenHash: string, at: Date): Promise<void> {
    await this.tx.transactional.upsert(ScimToken, { organizationId: scope.organizationId, tokenHash, createdAt: at }, ['organizationId']);
  }

  async deleteScimToken(scope: TenantScope): Promise<boolean> {
    const result = await this.tx.transactional.delete(ScimToken, { organizationId: scope.organizationId });
    return (result.affected ?? 0) > 0;
  }

  async findScimUser(scope: TenantScope, userId: string): Promise<ScimUser | null> {
    return this.tx.reads.findOne(ScimUser, { where: { organizationId: scope.organizationId, userId } });
  }

  /** The same, read in the transaction (after the organization's lock). */
  async findScimUserForUpdate(scope: TenantScope, userId: string): Promise<ScimUser | null> {
    return this.tx.transactional.findOne(ScimUser, { where: { organizationId: scope.organizationId, userId } });
  }

  async findScimUserByExternalId(scope: TenantScope, externalId: string): Promise<ScimUser | null> {
    return this.tx.reads.findOne(ScimUser, { where: { organizationId: scope.organizationId, externalId } });
  }

  async inactiveScimUsers(scope: TenantScope): Promise<ScimUser[]> {
    return this.tx.reads.find(ScimUser, { where: { organizationId: scope.organizationId, active: false }, order: { userId: 'ASC' } });
  }

  async scimUsersOf(scope: TenantScope, userIds: readonly string[]): Promise<ScimUser[]> {
    if (userIds.length === 0) return [];
    return this.tx.reads
      .createQueryBuilder(ScimUser, 's')
      .where('s.organizationId = :organizationId AND s.userId IN (:...userIds)', { organizationId: scope.organizationId, userIds })
      .getMany();
  }

  async saveScimUser(scope: TenantScope, user: ScimUser): Promise<void> {
    await this.tx.transactional.upsert(ScimUser, { ...user, organizationId: scope.organizationId }, ['organizationId', 'userId']);
  }

  async deleteScimUser(scope: TenantScope, userId: string): Promise<void> {
    await this.tx.transactional.delete(ScimUser, { organizationId: scope.organizationId, userId });
  }
}
