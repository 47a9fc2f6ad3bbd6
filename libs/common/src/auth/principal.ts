import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import { AppError } from '../errors/app-error.js';
import type { Role } from './roles.js';
import type { Scope } from './scopes.js';

export type KeyMode = 'live' | 'test';
export type KeyKind = 'secret' | 'publishable';

/** What a publishable key allows (api-rules.md § Browser booking). */
export interface PublishableAccess {
  allowedOrigins: string[];
  /** null: every active event type of the organization. */
  eventTypeIds: string[] | null;
  /** null: every routing form of the organization. */
  routingFormIds: string[] | null;
}

/** The acting user of an API key, read in the key's own lookup (GET /users/me answers from it). */
export interface KeyActor {
  email: string;
  firstName: string | null;
  lastName: string | null;
  timezone: string;
  /** The member's own locale (contract § 23); null: the organization's default. */
  locale: string | null;
  createdAt: Date;
  /** The user's active membership of the key's organization; null when it has left. */
  memberId: string | null;
  organizationName: string;
  organizationSlug: string;
  organizationDefaultLocale: string;
}

/** What an OAuth access token carries: always live mode, within its scopes, rate-limited per grant. */
export interface AppAccess {
  id: string;
  name: string;
  grantId: string;
  scopes: Scope[];
  /** The connecting organization as GET /users/me shows it, read in the token's own lookup. */
  organization: { name: string; slug: string; defaultLocale: string };
}

/** Who is calling, as established by the global access guard. */
export interface Principal {
  type: 'user' | 'api_key' | 'app';
  organizationId: string;
  /** The session's user, or the API key's creator, or the member who approved an app's grant (the "acting user"). */
  userId: string;
  /** The acting user's membership; null when an API key's creator has left. */
  memberId: string | null;
  /** The JWT caller's role; null for API keys, which act for the organization within their scopes. */
  role: Role | null;
  sessionId?: string;
  /** Who this is in the audit log: a session's member email, a key's name and prefix. */
  label?: string;
  apiKey?: {
    id: string;
    scopes: Scope[];
    mode: KeyMode;
    rateLimitPerMinute: number;
    actor: KeyActor | null;
    /** Set for a publishable key only. */
    publishable?: PublishableAccess;
  };
  /** A partner app's access token (contract § 20): the app, the organization's grant and the token's scopes. */
  app?: AppAccess;
  /** False only for test-mode keys (api-rules.md § Test mode). */
  livemode: boolean;
}

export interface RequestWithPrincipal {
  principal?: Principal;
  ip?: string;
}

/** The caller, on routes that require credentials. */
export const CurrentPrincipal = createParamDecorator((_data: unknown, context: ExecutionContext): Principal => {
  const principal = context.switchToHttp().getRequest<RequestWithPrincipal>().principal;
  if (!principal) throw AppError.unauthorized();
  return principal;
});

/** The caller when credentials are optional (attendee-token routes): undefined for anonymous calls. */
export const OptionalPrincipal = createParamDecorator(
  (_data: unknown, context: ExecutionContext): Principal | undefined => context.switchToHttp().getRequest<RequestWithPrincipal>().principal,
);
