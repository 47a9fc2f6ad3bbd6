import { Injectable } from '@nestjs/common';
import {
  constantTimeEqual,
  type KeyActor,
  type KeyKind,
  type KeyMode,
  type PublishableAccess,
  type Role,
  type Scope,
  sha256,
  type TenantScope,
  verifiedTenantScope,
} from '@app/common';
import { TransactionHost } from '@app/database';
import type { ComposedCompanion } from './key-companions.js';

/** An API key found by its hash, before any check of revocation or expiry. */
export interface ApiKeyCredential {
  scope: TenantScope;
  id: string;
  /** The key's name and prefix, as the audit log names it. */
  label: string;
  createdByUserId: string;
  scopes: Scope[];
  rateLimitPerMinute: number;
  mode: KeyMode;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  /** Null when the creating user no longer exists. */
  actor: KeyActor | null;
  /** Set for a publishable key only. */
  publishable: PublishableAccess | null;
  /** What the companion read, when one was composed with the lookup (apiKeyByHash). */
  companion?: unknown;
}

/** A partner app's access token found by its hash (contract § 20), before any check of revocation or expiry. */
export interface AppTokenCredential {
  /** The connecting organization, live mode. */
  scope: TenantScope;
  kind: 'access' | 'refresh';
  scopes: Scope[];
  expiresAt: Date;
  revokedAt: Date | null;
  grantId: string;
  grantLastUsedAt: Date | null;
  /** The member who approved the grant: the acting user where a user is needed. */
  actingUserId: string;
  appId: string;
  appName: string;
  organizationName: string;
  organizationSlug: string;
  /** The locale of the organization's readers without one of their own (contract § 23). */
  organizationDefaultLocale: string;
}

/** A session with the membership it belongs to (live mode: sessions act on live data). */
export interface SessionCredential {
  scope: TenantScope;
  sessionId: string;
  userId: string;
  memberId: string;
  /** The member's email, as the audit log names the user. */
  email: string;
  role: Role;
  revokedAt: Date | null;
  expiresAt: Date;
  lastUsedAt: Date;
}

/** The one active membership of a user (one organization per user). */
export interface ActiveMembership {
  scope: TenantScope;
  memberId: string;
  role: Role;
}

/** A pending invitation found by its token. */
export interface InvitationCredential {
  scope: TenantScope;
  memberId: string;
  email: string;
  firstName: string | null;
  lastName: string | null;
  invitedAt: Date | null;
}

/** The API key's lookup ($1 the key's hash), with `along` added to its select list (a companion's columns). */
function apiKeyLookup(along: string): string {
  return `SELECT k.id, k.name, k.key_prefix, k.organization_id, k.created_by_user_id, k.scopes, k.rate_limit_per_minute, k.mode, k.expires_at,
              k.last_used_at, k.revoked_at, u.email, u.first_name, u.last_name, u.timezone, u.created_at AS user_created_at,
              m.id AS member_id, o.name AS organization_name, o.slug AS organization_slug,
              m.locale AS member_locale, o.default_locale AS organization_default_locale, k.kind, k.allowed_origins, k.event_type_ids, k.routing_form_ids${along}
         FROM api_keys k
         JOIN organizations o ON o.id = k.organization_id
         LEFT JOIN users u ON u.id = k.created_by_user_id
         LEFT JOIN members m ON m.user_id = k.created_by_user_id AND m.organization_id = k.organization_id AND m.status = 'active'
        WHERE k.key_hash = $1`;
}

const API_KEY_LOOKUP = apiKeyLookup('');

/**
 * The deliberate lookups that are not scoped by organization, all in this one place: each starts from
 * something a caller presents (an API key, a session, an invitation token, an attendee token, a login)
 * or asks about every organization at once (is this slug or email taken anywhere), and the first kind
 * answers with the TenantScope that the rest of the request works in. They read tables of several
 * modules (api_keys, sessions, members, organizations, bookings): a read model of credentials owned by
 * no feature, see docs/contributing/architecture.md. Only this class may call `verifiedTenantScope`.
 */
@Injectable()
export class GlobalLookups {
  /** The key's lookup with each companion's columns, by companion and number of parameters: written once. */
  private readonly composedLookups = new Map<string, { name: string; text: string }>();

  constructor(private readonly tx: TransactionHost) {}

  /**
   * The whole cost of authenticating a key: one lookup on a unique index, with the acting user, its
   * organization and active membership joined by primary keys (GET /users/me answers from them), as a
   * prepared statement: it runs on every key request. With a companion (KeyCompanion), the route's first read
   * is in the same statement, for the key's organization, and its value is on the credential.
   */
  async apiKeyByHash(keyHash: string, companion?: ComposedCompanion | null): Promise<ApiKeyCredential | null> {
    const { name, text } = companion ? this.composedLookup(companion) : { name: 'api-key-by-hash', text: API_KEY_LOOKUP };
    const rows: ({
      id: string;
      name: string;
      key_prefix: string;
      organization_id: string;
      created_by_user_id: string;
      scopes: Scope[];
      rate_limit_per_minute: number;
      mode: KeyMode;
      expires_at: Date | null;
      last_used_at: Date | null;
      revoked_at: Date | null;
      email: string | null;
      first_name: string | null;
      last_name: string | null;
      timezone: string;
      user_created_at: Date;
      member_id: string | null;
      organization_name: string;
      organization_slug: string;
      member_locale: string | null;
      organization_default_locale: string;
      kind: KeyKind;
      allowed_origins: string[] | null;
      event_type_ids: string[] | null;
      routing_form_ids: string[] | null;
    } & Record<string, unknown>)[] = await this.tx.prepared(name, text, companion ? [keyHash, ...companion.params] : [keyHash]);
    const row = rows[0];
    if (!row) return null;
    return {
      ...(companion ? { companion: companion.read.parse(row, companion.params) } : {}),
      scope: verifiedTenantScope(row.organization_id, row.mode === 'live'),
      id: row.id,
      label: `${row.name} (${row.key_prefix})`,
      createdByUserId: row.created_by_user_id,
      scopes: row.scopes,
      rateLimitPerMinute: row.rate_limit_per_minute,
      mode: row.mode,
      expiresAt: row.expires_at,
      lastUsedAt: row.last_used_at,
      revokedAt: row.revoked_at,
      publishable:
        row.kind === 'publishable'
          ? { allowedOrigins: row.allowed_origins ?? [], eventTypeIds: row.event_type_ids, routingFormIds: row.routing_form_ids }
          : null,
      actor:
        row.email === null
          ? null
          : {
              email: row.email,
              firstName: row.first_name,
              lastName: row.last_name,
              timezone: row.timezone,
              locale: row.member_locale,
              createdAt: row.user_created_at,
              memberId: row.member_id,
              organizationName: row.organization_name,
              organizationSlug: row.organization_slug,
              organizationDefaultLocale: row.organization_default_locale,
            },
    };
  }

  /** The prepared statement's name and text of the key's lookup with this companion. */
  private composedLookup(companion: ComposedCompanion): { name: string; text: string } {
    const key = `${companion.name}/${companion.params.length}`;
    let lookup = this.composedLookups.get(key);
    if (lookup === undefined) {
      // The companion's parameters follow the key's hash ($1).
      const placeholders = companion.params.map((_, index) => `$${index + 2}`);
      const columns = companion.read.columns({ organization: 'k.organization_id', livemode: "(k.mode = 'live')" }, placeholders);
      lookup = { name: `api-key-by-hash+${key}`, text: apiKeyLookup(`, ${columns}`) };
      this.composedLookups.set(key, lookup);
    }
    return lookup;
  }

  /**
   * An app's access token, its grant, app and organization in one prepared statement on the token's unique hash: it
   * runs on every request made with an access token, as apiKeyByHash does for keys.
   */
  async appTokenByHash(tokenHash: string): Promise<AppTokenCredential | null> {
    const rows: {
      kind: 'access' | 'refresh';
      scopes: Scope[];
      expires_at: Date;
      revoked_at: Date | null;
      grant_id: string;
      last_used_at: Date | null;
      acting_user_id: string;
      app_id: string;
      app_name: string;
      organization_id: string;
      organization_name: string;
      organization_slug: string;
      organization_default_locale: string;
    }[] = await this.tx.prepared(
      'app-token-by-hash',
      `SELECT t.kind, t.scopes, t.expires_at, t.revoked_at, g.id AS grant_id, g.last_used_at, g.acting_user_id,
              a.id AS app_id, a.name AS app_name, o.id AS organization_id, o.name AS organization_name, o.slug AS organization_slug,
              o.default_locale AS organization_default_locale
         FROM oauth_tokens t
         JOIN oauth_grants g ON g.id = t.grant_id
         JOIN oauth_apps a ON a.id = g.app_id
         JOIN organizations o ON o.id = g.organization_id
        WHERE t.token_hash = $1`,
      [tokenHash],
    );
    const row = rows[0];
    if (!row) return null;
    return {
      scope: verifiedTenantScope(row.organization_id, true),
      kind: row.kind,
      scopes: row.scopes,
      expiresAt: row.expires_at,
      revokedAt: row.revoked_at,
      grantId: row.grant_id,
      grantLastUsedAt: row.last_used_at,
      actingUserId: row.acting_user_id,
      appId: row.app_id,
      appName: row.app_name,
      organizationName: row.organization_name,
      organizationSlug: row.organization_slug,
      organizationDefaultLocale: row.organization_default_locale,
    };
  }

  /** What every JWT request needs, in one (prepared) query: the session and the active membership it belongs to. */
  async sessionById(sessionId: string): Promise<SessionCredential | null> {
    const rows: {
      session_id: string;
      user_id: string;
      member_id: string;
      email: string;
      organization_id: string;
      role: Role;
      revoked_at: Date | null;
      expires_at: Date;
      last_used_at: Date;
    }[] = await this.tx.prepared(
      'session-by-id',
      `SELECT s.id AS session_id, s.user_id, s.member_id, m.email, m.organization_id, m.role, s.revoked_at, s.expires_at, s.last_used_at
         FROM sessions s JOIN members m ON m.id = s.member_id AND m.status = 'active'
        WHERE s.id = $1`,
      [sessionId],
    );
    const row = rows[0];
    if (!row) return null;
    return {
      scope: verifiedTenantScope(row.organization_id, true),
      sessionId: row.session_id,
      userId: row.user_id,
      memberId: row.member_id,
      email: row.email,
      role: row.role,
      revokedAt: row.revoked_at,
      expiresAt: row.expires_at,
      lastUsedAt: row.last_used_at,
    };
  }

  /** Login and invitation acceptance: the user's active membership, wherever it is. */
  async activeMembershipOf(userId: string): Promise<ActiveMembership | null> {
    const rows: { id: string; organization_id: string; role: Role }[] = await this.tx.reads.query(
      `SELECT id, organization_id, role FROM members WHERE user_id = $1 AND status = 'active'`,
      [userId],
    );
    const row = rows[0];
    return row ? { scope: verifiedTenantScope(row.organization_id, true), memberId: row.id, role: row.role } : null;
  }

  /**
   * A pending invitation by its token's hash: presented by someone who has no organization yet, so the
   * token itself names the membership. `lock` holds the row until the transaction ends.
   */
  async invitationByTokenHash(tokenHash: string, lock = false): Promise<InvitationCredential | null> {
    const rows: {
      id: string;
      organization_id: string;
      email: string;
      first_name: string | null;
      last_name: string | null;
      invited_at: Date | null;
    }[] = await (lock ? this.tx.transactional : this.tx.reads).query(
      `SELECT id, organization_id, email, first_name, last_name, invited_at FROM members
        WHERE invitation_token_hash = $1 AND status = 'invited' ${lock ? 'FOR UPDATE' : ''}`,
      [tokenHash],
    );
    const row = rows[0];
    if (!row) return null;
    return {
      scope: verifiedTenantScope(row.organization_id, true),
      memberId: row.id,
      email: row.email,
      firstName: row.first_name,
      lastName: row.last_name,
      invitedAt: row.invited_at,
    };
  }

  /**
   * The attendee's way in: the booking's scope when `token` is its confirmation token, `'invalid'` when the
   * booking exists and the token is wrong, null when there is no such booking.
   */
  async bookingForAttendee(bookingId: string, token: string): Promise<TenantScope | 'invalid' | null> {
    const rows: { organization_id: string; livemode: boolean; confirmation_token_hash: string; series_token_hash: string | null }[] =
      await this.tx.reads.query(
        `SELECT b.organization_id, b.livemode, b.confirmation_token_hash, s.token_hash AS series_token_hash
           FROM bookings b LEFT JOIN booking_series s ON s.id = b.series_id AND s.organization_id = b.organization_id
          WHERE b.id = $1`,
        [bookingId],
      );
    const row = rows[0];
    if (!row) return null;
    // An occurrence of a series opens with its own token or the series' (api-rules.md § Seats and series).
    const hash = sha256(token);
    const opens =
      constantTimeEqual(hash, row.confirmation_token_hash) ||
      (row.series_token_hash !== null && constantTimeEqual(hash, row.series_token_hash));
    if (!opens) return 'invalid';
    return verifiedTenantScope(row.organization_id, row.livemode);
  }

  /** A member's calendar feed by its token's hash: the URL is the credential. */
  async bookingFeedByTokenHash(tokenHash: string): Promise<{ scope: TenantScope; userId: string } | null> {
    const rows: { organization_id: string; user_id: string }[] = await this.tx.reads.query(
      `SELECT organization_id, user_id FROM booking_feeds WHERE token_hash = $1`,
      [tokenHash],
    );
    const row = rows[0];
    return row ? { scope: verifiedTenantScope(row.organization_id, true), userId: row.user_id } : null;
  }

  /** The organization that claims an email domain for single sign-on (contract § 21): the domain names it. */
  async ssoDomainOwner(domain: string): Promise<TenantScope | null> {
    const rows: { organization_id: string }[] = await this.tx.reads.query(`SELECT organization_id FROM sso_domains WHERE domain = $1`, [
      domain,
    ]);
    return rows[0] ? verifiedTenantScope(rows[0].organization_id, true) : null;
  }

  /** A single sign-on in progress by its id (the `state` names it; its secret is checked when it is spent). */
  async ssoLoginScope(loginId: string): Promise<TenantScope | null> {
    const rows: { organization_id: string }[] = await this.tx.reads.query(`SELECT organization_id FROM sso_logins WHERE id = $1`, [
      loginId,
    ]);
    return rows[0] ? verifiedTenantScope(rows[0].organization_id, true) : null;
  }

  /** A SCIM token by its hash: the token is the directory's credential for its organization (contract § 21). */
  async scimTokenScope(tokenHash: string): Promise<TenantScope | null> {
    const rows: { organization_id: string }[] = await this.tx.reads.query(`SELECT organization_id FROM scim_tokens WHERE token_hash = $1`, [
      tokenHash,
    ]);
    return rows[0] ? verifiedTenantScope(rows[0].organization_id, true) : null;
  }

  /** Slugs are unique across organizations. */
  async organizationSlugTaken(slug: string): Promise<boolean> {
    const rows: unknown[] = await this.tx.reads.query(`SELECT 1 FROM organizations WHERE slug = $1`, [slug]);
    return rows.length > 0;
  }

  /** One organization per user: is this email an active member of an organization other than `scope`'s? */
  async activeMemberElsewhere(scope: TenantScope, email: string): Promise<boolean> {
    const rows: unknown[] = await this.tx.reads.query(
      `SELECT 1 FROM members WHERE organization_id <> $1 AND email = $2 AND status = 'active' LIMIT 1`,
      [scope.organizationId, email],
    );
    return rows.length > 0;
  }
}
