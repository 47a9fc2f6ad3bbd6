import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import type {
  OperationObject,
  ParameterObject,
  PathItemObject,
  ReferenceObject,
  ResponseObject,
  SchemaObject,
  SecuritySchemeObject,
} from '@nestjs/swagger';
import { ALL_SCOPES, ERROR_STATUS, SCOPE_WORDS } from '@app/common';
import { mediaExample } from './examples.js';
import { applyBodyRules, applyQueryRules, validationSchemas } from './validation-schemas.js';

const TAGS: Array<{ name: string; description: string }> = [
  { name: 'auth', description: 'Registration, login, token refresh and sessions (JWT)' },
  { name: 'users', description: 'The signed-in user or the API key’s creator' },
  { name: 'api-keys', description: 'Scoped, rate-limited server-to-server keys (JWT only; owner or admin)' },
  {
    name: 'oauth',
    description:
      'Partner apps (OAuth 2.0): registering apps, the consent page’s requests, connected apps (grants); docs/integrating/oauth.md',
  },
  { name: 'team', description: 'The organization, its members and invitations' },
  { name: 'event-types', description: 'What can be booked: duration, buffers, limits, hosts' },
  { name: 'availability', description: 'Weekly schedules, date overrides and bookable slots' },
  {
    name: 'out-of-office',
    description: 'Members’ absences: busy time that blocks their slots, an optional stand-in, the bookings to reassign',
  },
  {
    name: 'routing-forms',
    description: 'Forms whose answers choose the event type and hosts, a message or a link; dry runs and responses',
  },
  { name: 'bookings', description: 'Book, list, cancel, reschedule, confirm and decline; idempotent creation' },
  {
    name: 'public',
    description:
      'Booking from the browser with a publishable key (pk_…): event types, slots, holds and bookings as an attendee sees them; CORS for the key’s origins',
  },
  {
    name: 'holds',
    description: 'Keep a slot for a few minutes while an attendee fills in the form; a booking with holdId takes its place',
  },
  {
    name: 'attendees',
    description: 'Erasing an attendee from every booking of the organization (the right to be forgotten), synchronously',
  },
  { name: 'webhooks', description: 'Signed (Standard Webhooks), retried event deliveries and their log' },
  { name: 'calendars', description: 'Members’ own calendars (ICS feeds, CalDAV accounts) whose busy times block their slots' },
  { name: 'audit', description: 'Who changed what: every change made through the API, filtered, paged and exported (NDJSON)' },
  { name: 'health', description: 'Liveness and readiness probes (outside /v1, no credentials)' },
];

const ERROR_RESPONSE: ResponseObject = {
  description: '',
  content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorResponseDto' } } },
};

const BODY_ERRORS: Record<string, string> = {
  '413': 'PAYLOAD_TOO_LARGE: the body is over 1 MiB',
  '415': 'UNSUPPORTED_MEDIA_TYPE: the body is not application/json',
};

const UNAVAILABLE_RESPONSE: ResponseObject = {
  ...ERROR_RESPONSE,
  description:
    'SERVICE_UNAVAILABLE: the database is unreachable or too slow (DB_STATEMENT_TIMEOUT_MS); retry, with the same Idempotency-Key where the operation takes one',
  headers: { 'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer' } } },
};

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

function* operations(document: OpenAPIObject): Generator<[string, string, OperationObject]> {
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const operation = (item as PathItemObject)[method];
      if (operation) yield [path, method, operation];
    }
  }
}

function isReference(value: unknown): value is ReferenceObject {
  return typeof value === 'object' && value !== null && '$ref' in value;
}

/**
 * Security as a client generator reads it: public operations need nothing (`[]`), operations that take an
 * attendee token in the body also work without credentials (`{}`), and each scheme is listed once.
 */
function refineSecurity(operation: OperationObject): void {
  const extensions = operation as OperationObject & Record<`x-${string}`, unknown>;
  if (extensions['x-access'] === 'public') {
    operation.security = [];
    return;
  }
  const seen = new Set<string>();
  const security = (operation.security ?? []).filter((requirement) => {
    const key = JSON.stringify(requirement);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  if (extensions['x-attendee-token']) security.push({});
  operation.security = security;
}

/** `x-cookie` (a route that reads a cookie, the console's) becomes the cookie parameter it is (OpenAPI `in: cookie`). */
function refineCookie(operation: OperationObject): void {
  const extensions = operation as OperationObject & { 'x-cookie'?: { name: string; required: boolean; description: string } };
  const cookie = extensions['x-cookie'];
  if (!cookie) return;
  delete extensions['x-cookie'];
  operation.parameters = [...(operation.parameters ?? []), { in: 'cookie', schema: { type: 'string' }, ...cookie }];
}

function refineParameters(operation: OperationObject, rules: Record<string, SchemaObject>): void {
  const parameters = applyQueryRules(
    (operation.parameters ?? []).filter((p): p is ParameterObject => !isReference(p)),
    rules,
  );
  // Headers a route reads for its own bookkeeping (User-Agent for the session list) are no API parameters.
  operation.parameters = parameters.filter((parameter) => !(parameter.in === 'header' && parameter.name.toLowerCase() === 'user-agent'));
}

/** OpenAPI 3.0: a nullable enum lists null among its values, or validators refuse the null it allows. */
function nullableEnums(schema: SchemaObject | ReferenceObject): void {
  if (isReference(schema)) return;
  if (schema.nullable && schema.enum && !schema.enum.includes(null)) schema.enum = [...schema.enum, null];
  for (const property of Object.values(schema.properties ?? {})) nullableEnums(property);
  if (schema.items) nullableEnums(schema.items);
}

/**
 * A named enum (`enumName`) comes out as `allOf` with its one reference: said as the reference itself, which is what
 * it means (Redocly: no-illogical-composition-keywords). Only where nothing else would be lost with the siblings.
 */
function singleReferences(schema: SchemaObject | ReferenceObject): void {
  if (isReference(schema)) return;
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    if (isReference(property)) continue;
    const { allOf, type: _type, description, ...rest } = property;
    if (allOf?.length === 1 && !description && Object.keys(rest).length === 0) schema.properties![name] = allOf[0];
    else singleReferences(property);
  }
}

/** The class a validation rule nests (`$ref`, alone or in `allOf`), as its own rules. */
function nestedClassRules(rule: SchemaObject | ReferenceObject | undefined, rules: Record<string, SchemaObject>): SchemaObject | undefined {
  const reference = rule && (isReference(rule) ? rule : rule.allOf?.find(isReference));
  return reference ? rules[reference.$ref.slice(reference.$ref.lastIndexOf('/') + 1)] : undefined;
}

/**
 * An object written inline in a request body (the nullable `recurrence`: OpenAPI 3.0 cannot make a reference
 * nullable) says what its class enforces: its required fields, and no others (forbidNonWhitelisted). Swagger's
 * ApiPropertyOptional writes its own `required: false` over an inline `required` list, so `{}` looked valid.
 */
function closeInlineObjects(schema: SchemaObject, rule: SchemaObject | undefined, rules: Record<string, SchemaObject>): void {
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    if (isReference(property) || !property.properties) continue;
    const nested = nestedClassRules(rule?.properties?.[name], rules);
    if (nested?.required?.length) property.required = [...nested.required];
    property.additionalProperties = false;
    closeInlineObjects(property, nested, rules);
  }
}

/**
 * Codes an operation answers that its description does not name (the others are read from it): with the statuses
 * api-errors.decorator.ts describes only as a class (409, 410, 422), each error response lists its codes.
 */
const MORE_CODES: Record<string, string[]> = {
  register: ['EMAIL_TAKEN'],
  updateEventType: ['SEATS_IN_USE'],
  cancelBooking: ['CHANGE_NOT_ALLOWED'],
  rescheduleBooking: ['BOOKING_NOT_ACTIVE', 'BOOKING_IN_PAST', 'CHANGE_NOT_ALLOWED', 'EVENT_TYPE_INACTIVE'],
  createHold: ['EVENT_TYPE_INACTIVE'],
  listPublicSlots: ['EVENT_TYPE_INACTIVE'],
  createPublicHold: ['EVENT_TYPE_INACTIVE'],
  createPublicBooking: ['SLOT_UNAVAILABLE', 'EVENT_TYPE_INACTIVE'],
};

const CLASS_WORDS: Record<string, string> = {
  '409': 'the request conflicts with the resource’s state',
  '410': 'the invitation has expired',
  '422': 'well formed, but cannot be carried out',
};

/** A 409, 410 or 422 described by its class only: named by the codes the operation answers with that status. */
function errorCodes(operation: OperationObject): void {
  const text = `${operation.summary ?? ''} ${operation.description ?? ''}`;
  const idempotent = (operation.parameters ?? []).some((parameter) => !isReference(parameter) && parameter.name === 'Idempotency-Key');
  const named = new Set([
    ...(text.match(/\b[A-Z][A-Z_]{3,}\b/g) ?? []),
    ...(MORE_CODES[operation.operationId ?? ''] ?? []),
    ...(idempotent ? ['IDEMPOTENCY_KEY_IN_USE', 'IDEMPOTENCY_KEY_REUSED'] : []),
  ]);
  for (const [status, words] of Object.entries(CLASS_WORDS)) {
    const response = operation.responses[status] as ResponseObject | undefined;
    if (!response || isReference(response)) continue;
    const codes = Object.entries(ERROR_STATUS)
      .filter(([code, codeStatus]) => String(codeStatus) === status && named.has(code))
      .map(([code]) => code);
    if (codes.length > 0) operation.responses[status] = { ...response, description: `${codes.join(', ')}: ${words}` };
  }
}

/** Bodies whose fields are each optional but one at least is needed (the decorators cannot say `minProperties`). */
const AT_LEAST_ONE_FIELD = ['UpdateMemberDto', 'RouteTargetDto'];
/**
 * A route whose last segment is a wildcard (`*`, for a parameter longer than the router's 100-character cap) comes out
 * as `{path}` with a parameter `*`: named as the operation's own documented path parameter instead.
 */
function namedWildcards(document: OpenAPIObject): void {
  for (const [path, item] of Object.entries(document.paths)) {
    if (!path.endsWith('/{path}')) continue;
    let name: string | undefined;
    for (const method of METHODS) {
      const operation = (item as PathItemObject)[method];
      if (!operation) continue;
      const parameters = (operation.parameters ?? []).filter((p): p is ParameterObject => !isReference(p));
      operation.parameters = parameters.filter(
        (parameter) => !(parameter.in === 'path' && (parameter.name === '*' || parameter.name === 'path')),
      );
      name = parameters.find((parameter) => parameter.in === 'path' && parameter.name !== '*' && parameter.name !== 'path')?.name;
    }
    if (name === undefined) continue;
    delete document.paths[path];
    document.paths[`${path.slice(0, -'{path}'.length)}{${name}}`] = item;
  }
}

/**
 * An example for every JSON request body and answer that has none, made from its schema (its properties' own examples
 * first); an error answer's shows its first code. Redocly's no-invalid-media-type-examples holds each to its schema.
 */
function examples(document: OpenAPIObject): void {
  for (const [, , operation] of operations(document)) {
    const body = operation.requestBody;
    if (body && !isReference(body)) mediaExample(document, body.content['application/json'], false);
    for (const [status, response] of Object.entries(operation.responses)) {
      if (!response || isReference(response) || !response.content?.['application/json']) continue;
      const media = response.content['application/json'];
      if (/^[45]/.test(status) && media.example === undefined) {
        const code = /^[A-Z_]+/.exec(response.description)?.[0];
        if (!code) continue;
        const message = response.description.includes(': ') ? response.description.slice(response.description.indexOf(': ') + 2) : code;
        // A fresh object: shared responses (ERROR_RESPONSE, UNAVAILABLE_RESPONSE) must not carry one operation's example.
        response.content = { 'application/json': { ...media, example: { code, message, requestId: 'req_8dJ2kQ0xWm3nB7vR1sTz' } } };
        operation.responses[status] = response;
        continue;
      }
      mediaExample(document, media, true);
    }
  }
}

/** What the decorators cannot say, or say loosely, made exact for client generators. */
export function refineDocument(document: OpenAPIObject): OpenAPIObject {
  namedWildcards(document);
  const rules = validationSchemas();
  const schemas = document.components?.schemas ?? {};
  for (const [name, schema] of Object.entries(schemas)) {
    if (rules[name] && !isReference(schema)) {
      schemas[name] = applyBodyRules(schema, rules[name]);
      closeInlineObjects(schemas[name] as SchemaObject, rules[name], rules);
    }
    nullableEnums(schemas[name]);
    singleReferences(schemas[name]);
    if (AT_LEAST_ONE_FIELD.includes(name) && !isReference(schemas[name])) (schemas[name] as SchemaObject).minProperties = 1;
  }
  for (const [path, , operation] of operations(document)) {
    refineCookie(operation);
    refineSecurity(operation);
    refineParameters(operation, rules);
    errorCodes(operation);
    if (operation.requestBody) {
      for (const [status, description] of Object.entries(BODY_ERRORS)) operation.responses[status] ??= { ...ERROR_RESPONSE, description };
    }
    // Any input can be refused: a parameter or body that fails its rules, or text no field can hold (a NUL character).
    if (operation.requestBody || operation.parameters?.length) {
      operation.responses['400'] ??= { ...ERROR_RESPONSE, description: 'VALIDATION_ERROR: `details` names each refused field' };
    }
    // Everything but liveness reads the database: while it is unreachable or too slow, a fast 503.
    if (path !== '/health') operation.responses['503'] ??= UNAVAILABLE_RESPONSE;
  }
  examples(document);
  document.tags = TAGS;
  return document;
}

/** The authorization server's own URLs are under PUBLIC_URL (contract § 20); the scheme lists every scope. */
function oauth2Scheme(issuerUrl: string): SecuritySchemeObject {
  return {
    type: 'oauth2',
    description:
      'A partner app’s access token (oat_…), sent as `Authorization: Bearer oat_…`: authorization code with PKCE (S256), see docs/integrating/oauth.md. ' +
      'In Swagger UI, register an app whose redirect URI is this deployment’s `/docs/oauth2-redirect.html`.',
    flows: {
      authorizationCode: {
        authorizationUrl: `${issuerUrl}/oauth/authorize`,
        tokenUrl: `${issuerUrl}/oauth/token`,
        refreshUrl: `${issuerUrl}/oauth/token`,
        scopes: Object.fromEntries(ALL_SCOPES.map((scope) => [scope, SCOPE_WORDS[scope]])),
      },
    },
  };
}

export function createOpenApiDocument(app: INestApplication, serverUrl: string, issuerUrl = serverUrl): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Scheduling API')
    .setDescription(
      'Event types, availability, bookings, team and webhooks. Authenticate with `Authorization: ApiKey <key>` ' +
        '(server to server, scoped) or `Authorization: Bearer <jwt>` (user sessions). Errors are ' +
        '`{ code, message, details?, requestId }`.',
    )
    .setVersion('1')
    .setLicense('Proprietary', `${serverUrl}/docs`)
    .addServer(serverUrl, 'This deployment')
    .addApiKey({ type: 'apiKey', in: 'header', name: 'Authorization', description: 'ApiKey mk_live_… or ApiKey mk_test_…' }, 'ApiKey')
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }, 'bearer')
    .addApiKey(
      {
        type: 'apiKey',
        in: 'header',
        name: 'Authorization',
        description:
          'ApiKey pk_live_… or ApiKey pk_test_…: a publishable key, from a page on one of its allowedOrigins (the public routes only)',
      },
      'PublishableKey',
    )
    .addOAuth2(oauth2Scheme(issuerUrl), 'oauth2')
    .build();
  return refineDocument(SwaggerModule.createDocument(app, config));
}
