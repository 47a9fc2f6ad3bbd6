import type { OpenAPIObject, ReferenceObject, SchemaObject } from '@nestjs/swagger';

/** An example that fails its schema (a pattern no sample fits): the media type is left without one. */
class NoExample extends Error {}

/** Strings tried, in order, for a string with a pattern and no example of its own. */
const CANDIDATES = ['09:00', '17:00', 'intro-call', 'Europe/Berlin', 'https://partner.example/callback', '#1a73e8', 'example', 'en'];

function isReference(value: unknown): value is ReferenceObject {
  return typeof value === 'object' && value !== null && '$ref' in value;
}

/** A plain string's example by its property's name. */
function wordFor(name: string): string {
  const words: Array<[RegExp, string]> = [
    [/email/i, 'ann@example.com'],
    [/(url|uri)$/i, 'https://partner.example/webhooks'],
    [/^(first)?name$/i, 'Ann'],
    [/lastName$/i, 'Lee'],
    [/title$/i, 'Intro call'],
    [/slug$/i, 'intro-call'],
    [/time ?zone$/i, 'Europe/Berlin'],
    [/phone$/i, '+49 30 1234567'],
    [/^location$/i, 'https://meet.example.com/intro'],
    [/^eventTypeIds?$/, 'evt_4f9QdY0m2kBz7Lr1Xc8VtN3a'],
    [/^(host)?UserIds?$|^userIds?$/i, 'usr_8dJ2kQ0xWm3nB7vR1sTz4a6Y'],
    [/^bookingIds?$/, 'bkg_2Hs9LqP4vXe7Nc1Bm6Tz3Wd8'],
    [/^organizationId$/, 'org_5Rt8Yw2Qn6Lp9Vb3Xk1Mz7Hc'],
    [/^memberId$/, 'mem_7Gd3Kp9Wq2Zx5Lv8Nb1Rt4Yc'],
    [/^description$/i, 'A first conversation of half an hour'],
    [/^(reason|notes?|message)$/i, 'Moved at the attendee’s request'],
    [/^label$/i, 'Company'],
    [/token$/i, 'tok_8dJ2kQ0xWm3nB7vR1sTz'],
  ];
  return words.find(([pattern]) => pattern.test(name))?.[1] ?? name;
}

function stringExample(schema: SchemaObject, name: string): string {
  const id = schema.pattern && /^\^([a-z]+)_\[0-9A-Za-z\]\{20,64\}\$$/.exec(schema.pattern);
  if (id) return `${id[1]}_8dJ2kQ0xWm3nB7vR1sTz4a6Y`;
  const byFormat: Record<string, string> = {
    'date-time': '2027-03-01T09:00:00.000Z',
    date: '2027-03-01',
    email: 'ann@example.com',
    uri: 'https://partner.example/webhooks',
    url: 'https://partner.example/webhooks',
    uuid: '3f1c2a9e-6b7d-4e21-9a0c-5d8e7f6a1b2c',
    'iana-time-zone': 'Europe/Berlin',
  };
  const candidates = [...(schema.format && byFormat[schema.format] ? [byFormat[schema.format]] : []), wordFor(name), ...CANDIDATES];
  const fits = (value: string): boolean =>
    (!schema.pattern || new RegExp(schema.pattern, 'u').test(value)) &&
    value.length >= (schema.minLength ?? 0) &&
    value.length <= (schema.maxLength ?? Infinity);
  const found = candidates.find(
    (value) => fits(value) && (schema.pattern || !schema.format || !byFormat[schema.format] || value === byFormat[schema.format]),
  );
  if (found === undefined) throw new NoExample();
  return found;
}

/**
 * A value the schema accepts, made of its own examples and defaults where it has them: what a request or an answer
 * looks like. `full` gives every property (an answer); otherwise the required ones and those with an example (a request).
 */
function exampleOf(document: OpenAPIObject, schema: SchemaObject | ReferenceObject, full: boolean, depth = 0, name = 'value'): unknown {
  if (depth > 16) throw new NoExample();
  if (isReference(schema)) {
    return exampleOf(document, document.components!.schemas![schema.$ref.slice(schema.$ref.lastIndexOf('/') + 1)], full, depth + 1, name);
  }
  if (schema.example !== undefined) return schema.example;
  if (schema.allOf?.length === 1) return exampleOf(document, schema.allOf[0], full, depth + 1, name);
  if (schema.oneOf?.length || schema.anyOf?.length) return exampleOf(document, (schema.oneOf ?? schema.anyOf)![0], full, depth + 1, name);
  if (schema.enum) {
    const value = schema.enum.find((candidate) => candidate !== null);
    if (value === undefined) throw new NoExample();
    return value;
  }
  if (schema.default !== undefined) return schema.default;
  if (schema.type === 'object' || schema.properties) {
    const result: Record<string, unknown> = {};
    for (const [key, property] of Object.entries(schema.properties ?? {})) {
      const required = schema.required?.includes(key) ?? false;
      if (!full && !required && (isReference(property) || property.example === undefined)) continue;
      try {
        result[key] = exampleOf(document, property, full, depth + 1, key);
      } catch (error) {
        if (required || !(error instanceof NoExample)) throw error;
      }
    }
    // A body of optional fields one of which is needed (minProperties): all of them.
    if (Object.keys(result).length < (schema.minProperties ?? 0)) {
      if (full) throw new NoExample();
      return exampleOf(document, schema, true, depth, name);
    }
    return result;
  }
  if (schema.type === 'array') {
    if (!schema.items) return [];
    if ((schema.minItems ?? 0) > 1) throw new NoExample();
    try {
      return [exampleOf(document, schema.items, full, depth + 1, name)];
    } catch (error) {
      // A recursive schema (a routing condition's `all` and `any`) ends in an empty list where it may.
      if (error instanceof NoExample && !schema.minItems) return [];
      throw error;
    }
  }
  if (schema.type === 'string') return stringExample(schema, name);
  if (schema.type === 'integer' || schema.type === 'number') {
    const byName: Array<[RegExp, number]> = [
      [/Minutes$/, 30],
      [/Hours$/, 24],
      [/Days$/, 60],
      [/^limit$/, 20],
      [/PerMinute$/, 120],
    ];
    const value = byName.find(([pattern]) => pattern.test(name))?.[1] ?? schema.minimum ?? 1;
    return Math.min(Math.max(value, schema.minimum ?? -Infinity), schema.maximum ?? Infinity);
  }
  if (schema.type === 'boolean') return true;
  throw new NoExample();
}

/** `example` for a JSON media type that has none, or nothing when no value fits its schema. */
export function mediaExample(
  document: OpenAPIObject,
  media: { schema?: SchemaObject | ReferenceObject; example?: unknown; examples?: unknown } | undefined,
  full: boolean,
): void {
  if (!media?.schema || media.example !== undefined || media.examples !== undefined) return;
  try {
    media.example = exampleOf(document, media.schema, full);
  } catch (error) {
    if (!(error instanceof NoExample)) throw error;
  }
}
