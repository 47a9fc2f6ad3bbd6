import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@app/database';
import type { TenantScope } from '@app/common';

export interface MeRow {
  id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  timezone: string;
  /** The member's own locale (contract § 23). */
  locale: string | null;
  created_at: Date;
  organization_id: string;
  organization_name: string;
  organization_slug: string;
  organization_default_locale: string;
  member_id: string | null;
}

/**
 * Read model of GET /users/me: the user (auth's table), its organization and active membership (team's
 * tables) in one prepared statement (JWT sessions; an API key's own lookup reads the same). Read-only; the tables'
 * owners write them. Listed in docs/contributing/architecture.md with the other read models.
 */
@Injectable()
export class MeReadModel {
  constructor(private readonly tx: TransactionHost) {}

  async find(scope: TenantScope, userId: string): Promise<MeRow | null> {
    const rows = await this.tx.prepared<MeRow>(
      'me-read-model',
      `SELECT u.id, u.email, u.first_name, u.last_name, u.timezone, m.locale, u.created_at,
              o.id AS organization_id, o.name AS organization_name, o.slug AS organization_slug,
              o.default_locale AS organization_default_locale, m.id AS member_id
         FROM users u
         JOIN organizations o ON o.id = $1
         LEFT JOIN members m ON m.user_id = u.id AND m.organization_id = o.id AND m.status = 'active'
        WHERE u.id = $2`,
      [scope.organizationId, userId],
    );
    return rows[0] ?? null;
  }
}
