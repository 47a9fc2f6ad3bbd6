import type { ParameterObject, ReferenceObject, SchemaObject } from '@nestjs/swagger';
import { getMetadataStorage, ValidationTypes } from 'class-validator';
import { validationMetadatasToSchemas } from 'class-validator-jsonschema';
import { nestedClassOf } from '@app/common';
import type { SchemaConverter } from 'class-validator-jsonschema/build/defaultConverters.js';

type Schema = SchemaObject | ReferenceObject;

/** Our own class-validator decorators, as JSON Schema (class-validator-jsonschema knows only the built-in ones). */
const CUSTOM_VALIDATORS: Record<string, SchemaObject> = {
  isIanaTimeZone: { type: 'string', format: 'iana-time-zone', minLength: 1, maxLength: 64, example: 'Europe/Berlin' },
  isCalendarDate: { type: 'string', format: 'date', example: '2027-03-01' },
  isWebhookUrl: { type: 'string', format: 'uri', maxLength: 2048 },
  isRedirectUri: { type: 'string', format: 'uri', maxLength: 2000 },
  isEmailDomain: { type: 'string', format: 'hostname', maxLength: 253 },
  isMetadata: { type: 'object', maxProperties: 20, additionalProperties: { type: 'string', maxLength: 500 } },
};

/**
 * The JSON Schema of every class that carries class-validator rules, keyed by class name: the very
 * rules the ValidationPipe enforces, so the document cannot promise more or less than the API accepts.
 */
export function validationSchemas(): Record<string, SchemaObject> {
  const storage = getMetadataStorage();
  return validationMetadatasToSchemas({
    refPointerPrefix: '#/components/schemas/',
    additionalConverters: {
      [ValidationTypes.CUSTOM_VALIDATION]: (meta) => {
        const name = meta.constraintCls ? storage.getTargetValidatorConstraints(meta.constraintCls)[0]?.name : undefined;
        // The two packages type JSON Schema separately (openapi3-ts and @nestjs/swagger); the shapes are the same.
        return ((name && CUSTOM_VALIDATORS[name]) || {}) as ReturnType<SchemaConverter>;
      },
      // The class a nested property holds, as NestedObject(s) declared it: the reflected type of `RecurrenceDto | null`
      // or of an array is only Object or Array.
      [ValidationTypes.NESTED_VALIDATION]: (meta, options) => {
        const nested = typeof meta.target === 'function' ? nestedClassOf(meta.target as new () => object, meta.propertyName) : undefined;
        return (nested ? { $ref: `${options.refPointerPrefix}${nested.name}` } : {}) as ReturnType<SchemaConverter>;
      },
    },
  }) as Record<string, SchemaObject>;
}

/** Keywords the validation rules decide; descriptions, examples and defaults stay as the Swagger decorators wrote them. */
const RULE_KEYWORDS = [
  'type',
  'format',
  'pattern',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'minItems',
  'maxItems',
  'uniqueItems',
  'maxProperties',
  'additionalProperties',
  'enum',
  'items',
] as const;

function isReference(schema: Schema): schema is ReferenceObject {
  return '$ref' in schema;
}

/** Copies the rule keywords of `rules` onto `target`; nested objects ($ref, allOf) keep Swagger's shape. */
export function applyRules(target: Schema, rules: SchemaObject | undefined): Schema {
  if (!rules || isReference(target) || target.allOf || '$ref' in rules) return target;
  const merged: SchemaObject = { ...target };
  for (const keyword of RULE_KEYWORDS) {
    const value = rules[keyword];
    if (value === undefined) continue;
    if (keyword === 'items' && (isReference(value as Schema) || (target.items && isReference(target.items)))) continue;
    if (keyword === 'type' && value === 'object' && target.type && target.type !== 'object') continue;
    (merged as Record<string, unknown>)[keyword] = value;
  }
  // A nullable property documented as `object` (Swagger's reading of `string | null`) takes the rule's type.
  if (target.nullable && rules.type) merged.type = rules.type;
  return merged;
}

/** A request body class: every property gets its rules, and unknown properties are refused (forbidNonWhitelisted). */
export function applyBodyRules(schema: SchemaObject, rules: SchemaObject): SchemaObject {
  const properties: Record<string, Schema> = {};
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    properties[name] = applyRules(property, rules.properties?.[name] as SchemaObject | undefined);
  }
  return { ...schema, properties, additionalProperties: false };
}

/**
 * Query parameters come from one class per operation, which the document does not name: the class is
 * the one whose validated properties are exactly the operation's query parameters. Where several match
 * and disagree, nothing is applied (a test checks every parameter ends up typed).
 */
export function applyQueryRules(parameters: ParameterObject[], schemas: Record<string, SchemaObject>): ParameterObject[] {
  const names = parameters.filter((parameter) => parameter.in === 'query').map((parameter) => parameter.name);
  if (names.length === 0) return parameters;
  const key = [...names].sort().join(',');
  const candidates = Object.values(schemas).filter(
    (schema) =>
      Object.keys(schema.properties ?? {})
        .sort()
        .join(',') === key,
  );
  const distinct = new Set(candidates.map((schema) => JSON.stringify(schema.properties)));
  if (distinct.size !== 1) return parameters;
  const rules = candidates[0].properties as Record<string, SchemaObject>;
  return parameters.map((parameter) =>
    parameter.in === 'query' && parameter.schema
      ? { ...parameter, schema: applyRules(parameter.schema, rules[parameter.name]) }
      : parameter,
  );
}
