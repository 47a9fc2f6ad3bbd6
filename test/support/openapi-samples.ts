import type { OpenAPIObject, ReferenceObject, SchemaObject } from '@nestjs/swagger';

/** Real ids to put where the document asks for one, by id prefix (`usr`, `evt`, …). */
export type KnownIds = Partial<Record<string, string>>;

let counter = 0;

export function resolve(document: OpenAPIObject, schema: SchemaObject | ReferenceObject): SchemaObject {
  if (!('$ref' in schema)) return schema;
  const name = schema.$ref.replace('#/components/schemas/', '');
  return document.components!.schemas![name] as SchemaObject;
}

function prefixOf(name: string, schema: SchemaObject): string | undefined {
  const fromPattern = /^\^([a-z]+)_/.exec(schema.pattern ?? '')?.[1];
  if (fromPattern) return fromPattern;
  const fromName: Record<string, string> = { eventTypeId: 'evt', userId: 'usr', hostUserId: 'usr' };
  return fromName[name];
}

function sampleString(name: string, schema: SchemaObject, ids: KnownIds): string {
  const prefix = prefixOf(name, schema);
  if (prefix) return ids[prefix] ?? `${prefix}_${'A'.repeat(24)}`;
  if (schema.format === 'email' || /email/i.test(name)) return `sample-${++counter}-${Date.now()}@example.com`;
  if (schema.format === 'date') return '2027-03-01';
  // An end after the start where a body has both (an out-of-office entry).
  if (name === 'endsAt') return '2027-03-01T11:00:00Z';
  if (schema.format === 'date-time' || /^(start|newStart|end)Time$/.test(name)) return '2027-03-01T10:00:00Z';
  if (schema.format === 'iana-time-zone') return 'Europe/Berlin';
  if (schema.format === 'hostname') return `sample-${++counter}.example.com`;
  if (schema.format === 'uri') return 'http://127.0.0.1:9/hook'; // loopback: a sample must never reach outside the machine
  if (schema.pattern === '^([01]\\d|2[0-3]):[0-5]\\d$') return '09:00';
  if (schema.pattern?.includes('24:00')) return '17:00';
  // A booking question's id (also a routing form's field id).
  if (schema.pattern === '^[a-z][a-z0-9_]*$') return `sample_${++counter}`;
  if (schema.pattern) return `sample-${++counter}`;
  const length = Math.max(schema.minLength ?? 1, 12);
  return `sample ${++counter} `.padEnd(Math.min(length, schema.maxLength ?? length), 'x');
}

/** A value the schema accepts: enums take their first value, numbers their default or minimum, ids the known ones. */
export function sample(document: OpenAPIObject, name: string, reference: SchemaObject | ReferenceObject, ids: KnownIds): unknown {
  const schema = resolve(document, reference);
  if (schema.enum) return schema.enum.find((value) => value !== null);
  switch (schema.type) {
    case 'string':
      return sampleString(name, schema, ids);
    case 'integer':
    case 'number':
      return schema.default ?? schema.minimum ?? 1;
    case 'boolean':
      return schema.default ?? false;
    case 'array':
      return schema.minItems ? [sample(document, name.replace(/s$/, ''), schema.items!, ids)] : [];
    default:
      return requiredBody(document, schema, ids);
  }
}

/** The smallest body the schema accepts: its required properties only. */
export function requiredBody(document: OpenAPIObject, schema: SchemaObject, ids: KnownIds): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const name of schema.required ?? []) body[name] = sample(document, name, schema.properties![name], ids);
  // `minProperties`: the first optional fields too, as many as it asks for.
  for (const name of Object.keys(schema.properties ?? {})) {
    if (Object.keys(body).length >= (schema.minProperties ?? 0)) break;
    if (!(name in body)) body[name] = sample(document, name, schema.properties![name], ids);
  }
  return body;
}

/** A value of another JSON type than the property's, which its schema must refuse. */
export function wrongType(document: OpenAPIObject, reference: SchemaObject | ReferenceObject): unknown {
  const schema = resolve(document, reference);
  switch (schema.type) {
    case 'string':
      return 12345;
    case 'integer':
    case 'number':
      return 'not a number';
    case 'boolean':
      return 'not a boolean';
    default:
      return 'not an object or array';
  }
}
