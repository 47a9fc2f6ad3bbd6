import { Injectable } from '@nestjs/common';
import type { Scope } from '@app/common';
import { TransactionHost } from '@app/database';
import { OAuthApp } from './entities/oauth-app.entity.js';
import { OAuthAuthorization } from './entities/oauth-authorization.entity.js';
import { OAuthToken } from './entities/oauth-token.entity.js';

export interface RequestWithApp {
  id: string;
  app_id: string;
  redirect_uri: string;
  scopes: Scope[];
  state: string | null;
  expires_at: Date;
  app_name: string;
  homepage_url: string | null;
  logo_url: string | null;
}

export interface RedeemedCode {
  id: string;
  redirect_uri: string;
  scopes: Scope[];
  code_challenge: string;
  code_expires_at: Date;
  grant_id: string | null;
  connecting_organization_id: string;
}

export interface RotatedRefresh {
  id: string;
  organization_id: string;
  grant_id: string;
  authorization_id: string;
  scopes: Scope[];
}

/**
 * The protocol's rows, found by what a client or a browser presents (a client id, a request id, a code, a token):
 * an app's requests, codes and tokens span its organization and the connecting ones. Single use of codes and refresh
 * tokens is a conditional UPDATE … RETURNING: of two instances redeeming one at once, one gets the row.
 */
@Injectable()
export class OAuthProtocolRepository {
  constructor(private readonly tx: TransactionHost) {}

  appByClientId(clientId: string): Promise<OAuthApp | null> {
    return this.tx.reads.findOne(OAuthApp, { where: { clientId } });
  }

  async insertAuthorization(row: OAuthAuthorization): Promise<void> {
    await this.tx.transactional.insert(OAuthAuthorization, row);
  }

  /** A request not yet decided nor expired, with its app; `lock` holds it until the transaction ends. */
  async openRequest(id: string, now: Date, lock = false): Promise<RequestWithApp | null> {
    const rows: RequestWithApp[] = await (lock ? this.tx.transactional : this.tx.reads).query(
      `SELECT r.id, r.app_id, r.redirect_uri, r.scopes, r.state, r.expires_at, a.name AS app_name, a.homepage_url, a.logo_url
         FROM oauth_authorizations r JOIN oauth_apps a ON a.id = r.app_id
        WHERE r.id = $1 AND r.decided_at IS NULL AND r.expires_at > $2 ${lock ? 'FOR UPDATE OF r' : ''}`,
      [id, now],
    );
    return rows[0] ?? null;
  }

  async decide(id: string, changes: Partial<OAuthAuthorization>): Promise<void> {
    await this.tx.transactional.update(OAuthAuthorization, { id }, changes);
  }

  /** The code's one redemption by its app; null when it is unknown, another app's or already redeemed. */
  async redeemCode(codeHash: string, appId: string, now: Date): Promise<RedeemedCode | null> {
    const [rows]: [RedeemedCode[], number] = await this.tx.transactional.query(
      `UPDATE oauth_authorizations SET code_used_at = $3
        WHERE code_hash = $1 AND app_id = $2 AND code_used_at IS NULL
        RETURNING id, redirect_uri, scopes, code_challenge, code_expires_at, grant_id, connecting_organization_id`,
      [codeHash, appId, now],
    );
    return rows[0] ?? null;
  }

  /** The authorization of a code of this app that was redeemed before (a replay), or null. */
  async redeemedCode(codeHash: string, appId: string): Promise<{ id: string } | null> {
    const rows: { id: string }[] = await this.tx.reads.query(
      `SELECT id FROM oauth_authorizations WHERE code_hash = $1 AND app_id = $2 AND code_used_at IS NOT NULL`,
      [codeHash, appId],
    );
    return rows[0] ?? null;
  }

  /** The grant a code was approved into, held against deletion until the tokens are written; null once deleted. */
  async lockGrant(grantId: string): Promise<{ id: string; organization_id: string } | null> {
    const rows: { id: string; organization_id: string }[] = await this.tx.transactional.query(
      `SELECT id, organization_id FROM oauth_grants WHERE id = $1 FOR KEY SHARE`,
      [grantId],
    );
    return rows[0] ?? null;
  }

  async insertTokens(tokens: OAuthToken[]): Promise<void> {
    await this.tx.transactional.insert(OAuthToken, tokens);
  }

  /** A live refresh token's one use; null when it is unknown, another app's, used, revoked or expired. */
  async rotateRefresh(tokenHash: string, appId: string, now: Date): Promise<RotatedRefresh | null> {
    const [rows]: [RotatedRefresh[], number] = await this.tx.transactional.query(
      `UPDATE oauth_tokens SET used_at = $3
        WHERE token_hash = $1 AND app_id = $2 AND kind = 'refresh' AND used_at IS NULL AND revoked_at IS NULL AND expires_at > $3
        RETURNING id, organization_id, grant_id, authorization_id, scopes`,
      [tokenHash, appId, now],
    );
    return rows[0] ?? null;
  }

  /** A token of this app by its hash, whatever its state. */
  async tokenByHash(
    tokenHash: string,
    appId: string,
  ): Promise<{ id: string; kind: string; authorization_id: string; used_at: Date | null; revoked_at: Date | null } | null> {
    const rows: { id: string; kind: string; authorization_id: string; used_at: Date | null; revoked_at: Date | null }[] =
      await this.tx.reads.query(
        `SELECT id, kind, authorization_id, used_at, revoked_at FROM oauth_tokens WHERE token_hash = $1 AND app_id = $2`,
        [tokenHash, appId],
      );
    return rows[0] ?? null;
  }

  /** Every token issued from one code (its access and refresh tokens, through every rotation). */
  async revokeChain(authorizationId: string, at: Date): Promise<void> {
    await this.tx.transactional.query(`UPDATE oauth_tokens SET revoked_at = $2 WHERE authorization_id = $1 AND revoked_at IS NULL`, [
      authorizationId,
      at,
    ]);
  }

  /**
   * The sweep: tokens expired before `before`, then requests expired before it that no token names any more (a used
   * code's row stays while its chain lives, so a late replay still revokes it). Returns the rows deleted.
   */
  async deleteExpiredBefore(before: Date): Promise<number> {
    const outside = this.tx.outside('the sweep runs as a job of its own, in autocommit');
    const tokens: [unknown[], number] = await outside.query(`DELETE FROM oauth_tokens WHERE expires_at < $1`, [before]);
    const requests: [unknown[], number] = await outside.query(
      `DELETE FROM oauth_authorizations a
        WHERE a.expires_at < $1 AND NOT EXISTS (SELECT 1 FROM oauth_tokens t WHERE t.authorization_id = a.id)`,
      [before],
    );
    return (tokens[1] ?? 0) + (requests[1] ?? 0);
  }

  async revokeToken(id: string, at: Date): Promise<void> {
    await this.tx.transactional.query(`UPDATE oauth_tokens SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL`, [id, at]);
  }
}
