import { type ArgumentsHost, Catch, type ExceptionFilter, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { renderError } from '@app/common';

export const SCIM_CONTENT_TYPE = 'application/scim+json; charset=utf-8';
export const SCIM_ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';
export const SCIM_USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const SCIM_LIST = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
export const SCIM_PATCH = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
export const SCIM_MAX_RESULTS = 200;

/** A refusal in SCIM's shape (RFC 7644 § 3.12). */
export class ScimError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly scimType?: string,
  ) {
    super(detail);
  }
}

export function scimErrorBody(status: number, detail: string, scimType?: string): Record<string, unknown> {
  return { schemas: [SCIM_ERROR], status: String(status), ...(scimType ? { scimType } : {}), detail };
}

/** Every error of the SCIM routes in SCIM's shape; the service's own errors are rendered first, then reshaped. */
@Catch()
export class ScimExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  catch(error: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const request = host.switchToHttp().getRequest<FastifyRequest>();
    let body: Record<string, unknown>;
    let status: number;
    // The API's headers of an error (a 429's Retry-After, a 401's WWW-Authenticate) go with its SCIM body.
    let headers: Record<string, string> = {};
    if (error instanceof ScimError) {
      status = error.status;
      body = scimErrorBody(status, error.detail, error.scimType);
    } else {
      const rendered = renderError(error, String(request.id));
      if (rendered.unexpected) {
        const err = error instanceof Error ? error : new Error(String(error));
        this.logger.error({ err: { type: err.name, message: err.message, stack: err.stack }, requestId: request.id }, 'Unhandled error');
      }
      status = rendered.status;
      headers = rendered.headers;
      const details = rendered.body.details?.map((d) => `${d.field}: ${d.message}`).join('; ');
      const scimType = status === 400 ? 'invalidValue' : status === 409 ? 'uniqueness' : undefined;
      body = scimErrorBody(status, details ? `${rendered.body.message}: ${details}` : rendered.body.message, scimType);
    }
    void reply.code(status).headers(headers).header('content-type', SCIM_CONTENT_TYPE).send(JSON.stringify(body));
  }
}

/**
 * The one filter the contract names, `userName eq "…"` (case-insensitive attribute and operator, the value a JSON
 * string); anything else → 400 invalidFilter. Returns the value.
 */
export function parseUserNameFilter(filter: string): string {
  const match = /^\s*userName\s+eq\s+"((?:[^"\\]|\\.)*)"\s*$/i.exec(filter);
  if (!match) throw new ScimError(400, 'Only the filter userName eq "…" is supported', 'invalidFilter');
  try {
    return (JSON.parse(`"${match[1]}"`) as string).toLowerCase();
  } catch {
    throw new ScimError(400, 'The filter’s value is not a valid string', 'invalidFilter');
  }
}

/** What a PATCH may change (contract § 21): `active`, `name.givenName`, `name.familyName`, `externalId`. */
export interface UserChanges {
  active?: boolean;
  givenName?: string | null;
  familyName?: string | null;
  externalId?: string | null;
}

function stringOrNull(value: unknown, path: string): string | null {
  if (value === null) return null;
  if (typeof value === 'string' && value.length <= 256) return value;
  throw new ScimError(400, `${path} must be a string of at most 256 characters`, 'invalidValue');
}

function booleanOf(value: unknown): boolean {
  // Entra ID sends "True"/"False" as strings.
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string' && /^(true|false)$/i.test(value)) return value.toLowerCase() === 'true';
  throw new ScimError(400, 'active must be a boolean', 'invalidValue');
}

function applyPath(changes: UserChanges, path: string, value: unknown): void {
  switch (path.toLowerCase()) {
    case 'active':
      changes.active = booleanOf(value);
      return;
    case 'externalid':
      changes.externalId = stringOrNull(value, 'externalId');
      return;
    case 'name.givenname':
      changes.givenName = stringOrNull(value, 'name.givenName');
      return;
    case 'name.familyname':
      changes.familyName = stringOrNull(value, 'name.familyName');
      return;
    case 'name':
      if (typeof value !== 'object' || value === null || Array.isArray(value))
        throw new ScimError(400, 'name must be an object', 'invalidValue');
      for (const [key, inner] of Object.entries(value)) applyPath(changes, `name.${key}`, inner);
      return;
    default:
      if (path.startsWith(`${SCIM_USER}:`)) return applyPath(changes, path.slice(SCIM_USER.length + 1), value);
      throw new ScimError(400, `${path} cannot be changed`, path.toLowerCase() === 'username' ? 'mutability' : 'invalidPath');
  }
}

/** A PatchOp's operations as changes: `replace` (and `add`, its equivalent for single values), with or without `path`. */
export function parsePatch(body: unknown): UserChanges {
  const patch = body as { schemas?: unknown; Operations?: unknown };
  if (typeof body !== 'object' || body === null || !Array.isArray(patch.schemas) || !patch.schemas.includes(SCIM_PATCH))
    throw new ScimError(400, `A PATCH body is a ${SCIM_PATCH}`, 'invalidSyntax');
  if (!Array.isArray(patch.Operations) || patch.Operations.length === 0 || patch.Operations.length > 50)
    throw new ScimError(400, 'Operations must list 1 to 50 operations', 'invalidSyntax');
  const changes: UserChanges = {};
  for (const operation of patch.Operations as { op?: unknown; path?: unknown; value?: unknown }[]) {
    const op = typeof operation?.op === 'string' ? operation.op.toLowerCase() : '';
    if (op !== 'replace' && op !== 'add') throw new ScimError(400, 'Only replace (and add) operations are supported', 'invalidSyntax');
    if (operation.path === undefined) {
      if (typeof operation.value !== 'object' || operation.value === null || Array.isArray(operation.value))
        throw new ScimError(400, 'An operation without a path carries an object', 'invalidValue');
      for (const [key, value] of Object.entries(operation.value)) applyPath(changes, key, value);
    } else if (typeof operation.path === 'string') {
      applyPath(changes, operation.path, operation.value);
    } else throw new ScimError(400, 'path must be a string', 'invalidPath');
  }
  return changes;
}

/** A POST or PUT body's user. */
export interface ScimUserInput {
  userName: string;
  givenName: string | null;
  familyName: string | null;
  active: boolean;
  externalId: string | null;
}

export function parseUser(body: unknown): ScimUserInput {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new ScimError(400, 'The body must be a User', 'invalidSyntax');
  const user = body as Record<string, unknown>;
  const userName = typeof user.userName === 'string' ? user.userName.trim().toLowerCase() : '';
  if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(userName) || userName.length > 254)
    throw new ScimError(400, 'userName must be the person’s email address', 'invalidValue');
  const name = (user.name ?? {}) as Record<string, unknown>;
  if (typeof name !== 'object' || name === null) throw new ScimError(400, 'name must be an object', 'invalidValue');
  return {
    userName,
    givenName: name.givenName === undefined ? null : stringOrNull(name.givenName, 'name.givenName'),
    familyName: name.familyName === undefined ? null : stringOrNull(name.familyName, 'name.familyName'),
    active: user.active === undefined ? true : booleanOf(user.active),
    externalId: user.externalId === undefined ? null : stringOrNull(user.externalId, 'externalId'),
  };
}
