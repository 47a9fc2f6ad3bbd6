import { Transform, type TransformFnParams, Type } from 'class-transformer';
import { IsArray, IsObject, ValidateNested } from 'class-validator';

/**
 * What a nested property holds in place of an array or other non-object that stood where an object was expected:
 * a primitive, so class-validator's nested validation refuses it on that very path (`reminders[0]`) instead of
 * descending into the array's items and finding nothing to refuse.
 */
const NOT_AN_OBJECT = '[not an object]';

/** A JSON object: not null, not an array. */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * On each object of the copy the validation pipe hands class-transformer (see workingCopy in http/validation.ts): the
 * object as the request sent it, `constructor` and `__proto__` included.
 */
export const AS_SENT = Symbol('asSent');

const NESTED_CLASS = Symbol('nestedClass');

/** The class NestedObject or NestedObjects declared for a property of `target` (or of a class it extends). */
export function nestedClassOf(target: abstract new () => object, property: string): (abstract new () => object) | undefined {
  const type = Reflect.getMetadata(NESTED_CLASS, target.prototype as object, property) as (() => abstract new () => object) | undefined;
  return type?.();
}

/** The property's value as the request sent it. */
function rawOf({ obj, key }: TransformFnParams): unknown {
  const source = ((obj as { [AS_SENT]?: object })[AS_SENT] ?? obj) as Record<string, unknown>;
  return Object.hasOwn(source, key) ? source[key] : undefined;
}

/**
 * One object of class `type` (api-rules.md § Basics: where an object is expected, an array or any other type is a 400
 * naming the field). `ValidateNested` alone walks into an array and, finding no object there, passes it.
 */
export function NestedObject(type: () => new () => object): PropertyDecorator {
  return (target, propertyKey) => {
    IsObject()(target, propertyKey);
    ValidateNested()(target, propertyKey);
    Type(type)(target, propertyKey);
    Reflect.defineMetadata(NESTED_CLASS, type, target, propertyKey);
    Transform(
      (params) => {
        const raw = rawOf(params);
        return raw === null || raw === undefined || isJsonObject(raw) ? params.value : NOT_AN_OBJECT;
      },
      { toClassOnly: true },
    )(target, propertyKey);
  };
}

/** An array of objects of class `type`; an item that is not an object (`[[]]`, `[5]`) is a 400 naming it (`slots[0]`). */
export function NestedObjects(type: () => new () => object): PropertyDecorator {
  return (target, propertyKey) => {
    IsArray()(target, propertyKey);
    ValidateNested({ each: true })(target, propertyKey);
    Type(type)(target, propertyKey);
    Reflect.defineMetadata(NESTED_CLASS, type, target, propertyKey);
    Transform(
      (params) => {
        const raw = rawOf(params);
        if (!Array.isArray(raw) || !Array.isArray(params.value)) return params.value;
        return (params.value as unknown[]).map((item, index) => (isJsonObject(raw[index]) ? item : NOT_AN_OBJECT));
      },
      { toClassOnly: true },
    )(target, propertyKey);
  };
}

/**
 * An object whose keys the caller chooses (booking answers by question id, metadata), kept whole: class-transformer
 * would copy it leaving out `constructor`, `__proto__` and the names of Object.prototype's functions (`toString`,
 * `valueOf` …), so it is copied here instead, into an object without a prototype, where every name is only a key.
 */
export function Dictionary(): PropertyDecorator {
  return Transform((params) => toDictionary(rawOf(params)), { toClassOnly: true });
}

function toDictionary(value: unknown): unknown {
  if (!isJsonObject(value)) return value;
  const copy = Object.create(null) as Record<string, unknown>;
  for (const key of Object.keys(value)) copy[key] = value[key];
  return copy;
}
