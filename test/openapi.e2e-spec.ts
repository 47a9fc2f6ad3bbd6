import type { OpenAPIObject, OperationObject, ParameterObject, ReferenceObject, SchemaObject } from '@nestjs/swagger';
import { fileURLToPath } from 'node:url';
import { lintFromString, loadConfig } from '@redocly/openapi-core';
import { startTestApp, type TestApp } from './support/app.js';
import { createApiKey, registerOwner, type RegisteredOwner } from './support/factories.js';
import { ResponseContract } from './support/openapi.js';
import { requiredBody, resolve, wrongType, type KnownIds } from './support/openapi-samples.js';
import { createEventType } from './support/scheduling.js';

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

function operationsOf(document: OpenAPIObject): Array<{ method: string; path: string; operation: OperationObject }> {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    METHODS.filter((method) => item[method]).map((method) => ({ method, path, operation: item[method] as OperationObject })),
  );
}

/** Every schema object of the document with where it is, properties and items included. */
function* schemasOf(document: OpenAPIObject): Generator<[string, SchemaObject]> {
  function* walk(where: string, schema: SchemaObject | ReferenceObject): Generator<[string, SchemaObject]> {
    if ('$ref' in schema) return;
    yield [where, schema];
    for (const [name, property] of Object.entries(schema.properties ?? {})) yield* walk(`${where}.${name}`, property);
    if (schema.items) yield* walk(`${where}[]`, schema.items);
  }
  for (const [name, schema] of Object.entries(document.components?.schemas ?? {})) yield* walk(name, schema);
  for (const { method, path, operation } of operationsOf(document)) {
    for (const parameter of (operation.parameters ?? []) as ParameterObject[]) {
      if (parameter.schema) yield* walk(`${method} ${path} ${parameter.name}`, parameter.schema);
    }
  }
}

const INTEGER_NAMES =
  /^(page|limit|totalCount|durationMinutes|buffer(Before|After)Minutes|bookingWindowDays|maxBookingsPerDay|slotIntervalMinutes|dayOfWeek|rateLimitPerMinute|expiresIn|attempts|bookingsCount|responseStatus)$/;

describe('the OpenAPI document', () => {
  let t: TestApp;
  let document: OpenAPIObject;

  beforeAll(async () => {
    t = await startTestApp();
    document = (await t.http.get('/docs-json')).body;
  });
  afterAll(async () => {
    await t.close();
  });

  it('names every operation with a unique, stable verb', () => {
    const ids = operationsOf(document).map(({ operation }) => operation.operationId);
    expect(ids.every((id) => id && /^[a-z]+[A-Za-z]*$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    // The SDK names partners already call: renaming one breaks their code.
    expect(ids).toEqual(
      expect.arrayContaining([
        'createBooking',
        'listBookings',
        'getBooking',
        'cancelBooking',
        'rescheduleBooking',
        'confirmBooking',
        'declineBooking',
        'listAvailableSlots',
        'checkAvailability',
        'createEventType',
        'createApiKey',
        'createWebhook',
        'retryWebhookDelivery',
      ]),
    );
  });

  it('gives each operation a summary and a described tag, and the document its server and license', () => {
    const described = new Set((document.tags ?? []).filter((tag) => tag.description).map((tag) => tag.name));
    for (const { operation } of operationsOf(document)) {
      expect(operation.summary).toBeTruthy();
      expect(operation.tags?.length).toBeGreaterThan(0);
      for (const tag of operation.tags ?? []) expect(described).toContain(tag);
    }
    expect(document.servers).toEqual([{ url: t.config.appUrl, description: expect.any(String) }]);
    expect(document.info.license?.name).toBeTruthy();
  });

  it('types nullable fields by what they hold, and counts and minutes as integers', () => {
    // A nullable object says what it holds (its properties); only an untyped or empty one is loose.
    const loose = [...schemasOf(document)].filter(
      ([, schema]) => schema.nullable && (!schema.type || (schema.type === 'object' && !schema.properties)),
    );
    expect(loose.map(([where]) => where)).toEqual([]);
    const notInteger = [...schemasOf(document)].filter(
      ([where, schema]) => INTEGER_NAMES.test(where.split(/[. ]/).pop()!) && schema.type !== 'integer',
    );
    expect(notInteger.map(([where]) => where)).toEqual([]);
    for (const name of ['CreateEventTypeDto', 'EventTypeView', 'CreateOverrideDto', 'OverrideView']) {
      const schema = document.components!.schemas![name] as SchemaObject;
      for (const field of ['description', 'location', 'maxBookingsPerDay', 'slotIntervalMinutes', 'reason']) {
        const property = schema.properties?.[field] as SchemaObject | undefined;
        if (property)
          expect({ field, nullable: property.nullable, type: property.type }).toEqual({
            field,
            nullable: true,
            type: expect.stringMatching(/^(string|integer)$/),
          });
      }
    }
  });

  it('closes every request body and states its formats and bounds', () => {
    for (const { operation } of operationsOf(document)) {
      const body = operation.requestBody as { content: Record<string, { schema: SchemaObject }> } | undefined;
      if (!body) continue;
      const schema = resolve(document, body.content['application/json'].schema);
      expect({ operation: operation.operationId, additionalProperties: schema.additionalProperties }).toEqual({
        operation: operation.operationId,
        additionalProperties: false,
      });
    }
    const schemas = document.components!.schemas as Record<string, SchemaObject>;
    const property = (schema: string, name: string): SchemaObject => schemas[schema].properties![name] as SchemaObject;
    expect(property('CreateWebhookDto', 'events')).toMatchObject({ type: 'array', minItems: 1, uniqueItems: true });
    expect(property('CreateApiKeyDto', 'scopes')).toMatchObject({ type: 'array', minItems: 1, uniqueItems: true });
    expect(property('CreateEventTypeDto', 'hostUserIds')).toMatchObject({
      minItems: 1,
      uniqueItems: true,
      items: { pattern: '^usr_[0-9A-Za-z]{20,64}$' },
    });
    expect(property('CreateOverrideDto', 'date')).toMatchObject({ type: 'string', format: 'date' });
    expect(property('CreateApiKeyDto', 'expiresAt')).toMatchObject({ type: 'string', format: 'date-time' });
    expect(property('PutScheduleDto', 'timezone')).toMatchObject({ type: 'string', format: 'iana-time-zone' });
    expect(property('RegisterDto', 'password')).toMatchObject({ minLength: 8, maxLength: 128 });
    expect(property('CreateEventTypeDto', 'title')).toMatchObject({ minLength: 1, maxLength: 200 });
  });

  it('describes path ids by prefix, the Idempotency-Key exactly, and no User-Agent parameter', () => {
    for (const { path, operation } of operationsOf(document)) {
      for (const parameter of (operation.parameters ?? []) as ParameterObject[]) {
        expect(parameter.name.toLowerCase()).not.toBe('user-agent');
        // Every path parameter is an id, but the calendar feed's file name (its secret token) and an out-of-office
        // entry's external id (the caller's own).
        if (parameter.in === 'path' && path !== '/v1/calendar-feeds/{file}' && parameter.name !== 'externalId') {
          expect((parameter.schema as SchemaObject).pattern).toMatch(/^\^[a-z]+_\[0-9A-Za-z\]\{20,64\}\$$/);
        }
        if (parameter.name === 'Idempotency-Key') {
          expect({ path, required: parameter.required, schema: parameter.schema }).toEqual({
            path,
            required: false,
            schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7E]{1,255}$' },
          });
        }
      }
    }
  });

  it('declares security as callers meet it: public operations none, attendee-token ones optional, each scheme once', () => {
    const byId = Object.fromEntries(operationsOf(document).map(({ operation }) => [operation.operationId, operation.security]));
    for (const id of ['register', 'login', 'refreshSession', 'acceptInvitation', 'getHealth', 'getReadiness']) expect(byId[id]).toEqual([]);
    for (const id of ['cancelBooking', 'rescheduleBooking'])
      expect(byId[id]).toEqual([{ bearer: [] }, { ApiKey: [] }, { oauth2: ['bookings:write'] }, {}]);
    expect(byId.createApiKey).toEqual([{ bearer: [] }]);
    for (const id of ['listPublicEventTypes', 'createPublicHold', 'createPublicBooking'])
      expect(byId[id]).toEqual([{ PublishableKey: [] }]);
    expect(byId.getPublicBooking).toEqual([]);
    expect(byId.retryWebhookDelivery).toEqual([{ bearer: [] }, { ApiKey: [] }, { oauth2: ['webhooks:write'] }]);
    // Partner apps' access tokens, with the same scope as an API key (contract § 20).
    expect(byId.getCurrentUser).toEqual([{ bearer: [] }, { ApiKey: [] }, { oauth2: [] }]);
    expect(document.components!.securitySchemes!.oauth2).toMatchObject({
      type: 'oauth2',
      flows: {
        authorizationCode: {
          authorizationUrl: expect.stringMatching(/\/oauth\/authorize$/),
          tokenUrl: expect.stringMatching(/\/oauth\/token$/),
        },
      },
    });
  });

  it('describes the created key without lastUsedAt, which it does not carry', () => {
    const view = resolve(document, (document.components!.schemas!.CreatedApiKeyResponse as SchemaObject).properties!.key);
    expect(Object.keys(view.properties!)).not.toContain('lastUsedAt');
    expect(view.required).not.toContain('lastUsedAt');
  });

  it('passes Redocly’s recommended rules and redocly.yaml with no problem', async () => {
    const config = await loadConfig({ configPath: fileURLToPath(new URL('../redocly.yaml', import.meta.url)) });
    const problems = await lintFromString({ source: JSON.stringify(document), absoluteRef: 'openapi.json', config });
    const errors = problems.filter((problem) => problem.severity === 'error').map((problem) => `${problem.ruleId}: ${problem.message}`);
    expect(errors).toEqual([]);
    // Two rules are off, each with its reason in redocly.yaml; test/openapi-lint runs the CLI itself.
    const warnings = problems.filter((problem) => problem.severity === 'warn').map((problem) => `${problem.ruleId}: ${problem.message}`);
    expect(warnings).toEqual([]);
  });

  it('the response check fails on a status or a body the document does not describe', () => {
    const contract = new ResponseContract(document);
    const url = `${t.url}/v1/event-types`;
    expect(() => contract.check('POST', url, 418, 'application/json', {})).toThrow(/lists no such status/);
    expect(() => contract.check('POST', url, 201, 'application/json', { eventType: { id: 5 } })).toThrow(/does not match the document/);
    expect(() =>
      contract.check('POST', url, 400, 'application/json', { code: 'VALIDATION_ERROR', message: 'x', requestId: 'r' }),
    ).not.toThrow();
  });
});

describe('requests generated from the document’s own schemas', () => {
  let t: TestApp;
  let document: OpenAPIObject;
  let owner: RegisteredOwner;
  let ids: KnownIds;
  let publishableKey: string;

  beforeAll(async () => {
    t = await startTestApp();
    document = (await t.http.get('/docs-json')).body;
    owner = await registerOwner(t.http);
    const eventTypeId = await createEventType(t, { token: owner.accessToken });
    const key = await createApiKey(t.http, owner.accessToken);
    publishableKey = (await createApiKey(t.http, owner.accessToken, { kind: 'publishable', allowedOrigins: ['https://shop.example.com'] }))
      .apiKey;
    ids = { org: owner.organizationId, usr: owner.userId, mem: owner.memberId, evt: eventTypeId, key: key.id };
  });

  /** The public booking routes take a publishable key from one of its origins; the others the owner's session. */
  const credentialsFor = (operation: OperationObject): { token: string } | { apiKey: string; headers: Record<string, string> } =>
    operation.tags?.includes('public')
      ? { apiKey: publishableKey, headers: { origin: 'https://shop.example.com' } }
      : { token: owner.accessToken };
  afterAll(async () => {
    await t.close();
  });

  /** The path with a real id where one is known, else a well-formed one: the prefix comes from the document's pattern. */
  const pathOf = (template: string, operation: OperationObject): string =>
    template.replace(/\{([^}]+)\}/g, (_match, name: string) => {
      const parameter = (operation.parameters as ParameterObject[]).find((candidate) => candidate.name === name);
      if (name === 'externalId') return 'hr-1';
      const prefix = /^\^([a-z]+)_/.exec((parameter?.schema as SchemaObject | undefined)?.pattern ?? '')![1];
      return ids[prefix] ?? `${prefix}_${'A'.repeat(24)}`;
    });

  function bodyOperations(): Array<{ method: string; path: string; operation: OperationObject; schema: SchemaObject }> {
    return operationsOf(document).flatMap(({ method, path, operation }) => {
      const body = operation.requestBody as { content: Record<string, { schema: SchemaObject }> } | undefined;
      return body ? [{ method, path, operation, schema: resolve(document, body.content['application/json'].schema) }] : [];
    });
  }

  it('a body made of the required fields is never refused as invalid', async () => {
    const refused: string[] = [];
    for (const { method, path, operation, schema } of bodyOperations()) {
      const body = requiredBody(document, schema, ids);
      const res = await t.http.request(method.toUpperCase(), pathOf(path, operation), { body, ...credentialsFor(operation) });
      // A single sign-on issuer is read when saved (contract § 21: 400 naming `issuer`); no sample runs a provider.
      const unreadIssuer = operation.operationId === 'putSso' && res.status === 400 && res.body.details?.[0]?.field === 'issuer';
      if ((res.status === 400 && !unreadIssuer) || res.status >= 500)
        refused.push(`${operation.operationId} ${JSON.stringify(body)} → ${res.status} ${res.text}`);
    }
    expect(refused).toEqual([]);
  });

  it('a field of the wrong type is refused with 400 naming that field', async () => {
    const missed: string[] = [];
    let checked = 0;
    for (const { method, path, operation, schema } of bodyOperations()) {
      for (const [name, property] of Object.entries(schema.properties ?? {})) {
        const body = { ...requiredBody(document, schema, ids), [name]: wrongType(document, property) };
        const res = await t.http.request(method.toUpperCase(), pathOf(path, operation), { body, ...credentialsFor(operation) });
        checked++;
        const fields = (res.body?.details ?? []).map((detail: { field: string }) => detail.field);
        if (res.status !== 400 || !fields.some((field: string) => field === name || field.startsWith(`${name}.`))) {
          missed.push(`${operation.operationId}.${name} → ${res.status} ${res.text}`);
        }
      }
    }
    expect(missed).toEqual([]);
    expect(checked).toBeGreaterThan(60);
  });
});
