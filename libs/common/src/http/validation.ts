import { ArgumentMetadata, ValidationError, ValidationPipe } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { AppError, ErrorDetail } from '../errors/app-error.js';
import { ErrorCode } from '../errors/error-code.js';
import { AS_SENT, isJsonObject } from '../validation/nested.js';

/** class-validator's type checks: when one fails, the value's bounds or format mean nothing, so only it is reported. */
const TYPE_CONSTRAINTS = ['isInt', 'isNumber', 'isString', 'isBoolean', 'isArray', 'isObject', 'nestedValidation'];

/** At most this many unknown fields are named in one answer: a body of a thousand unknown keys gets a short 400. */
export const MAX_UNKNOWN_FIELDS_NAMED = 20;

interface Problem extends ErrorDetail {
  /** An unknown field (forbidNonWhitelisted), which are counted apart. */
  unknown: boolean;
}

function problemsOf(field: string, constraints: Record<string, string> = {}, value?: unknown): Problem[] {
  // null where the document does not allow it (see Optional): said as such, not as the bounds or format null misses.
  if (value === null && Object.keys(constraints).length > 0) return [{ field, message: `${field} must not be null`, unknown: false }];
  const typeCheck = TYPE_CONSTRAINTS.find((name) => name in constraints);
  // Said of the field itself: class-validator names an array item by its index alone ("nested property 0 …").
  if (typeCheck === 'nestedValidation') return [{ field, message: `${field} must be an object`, unknown: false }];
  if (typeCheck) return [{ field, message: constraints[typeCheck], unknown: false }];
  return Object.entries(constraints).map(([name, message]) => ({ field, message, unknown: name === 'whitelistValidation' }));
}

function flatten(errors: ValidationError[], parent = ''): Problem[] {
  return errors.flatMap((error) => {
    const field = parent ? (/^\d+$/.test(error.property) ? `${parent}[${error.property}]` : `${parent}.${error.property}`) : error.property;
    return [...problemsOf(field, error.constraints, error.value), ...flatten(error.children ?? [], field)];
  });
}

/**
 * The 400 of a failed validation: one detail per field (the first constraint that failed for it), of which at most
 * MAX_UNKNOWN_FIELDS_NAMED unknown fields; `dropped` are unknown fields class-transformer left out (see droppedFields).
 */
export class ValidationFailure extends AppError {
  constructor(
    private readonly problems: readonly Problem[],
    dropped: readonly string[] = [],
  ) {
    const all = [
      ...problems,
      ...dropped.map((field) => ({ field, message: `property ${lastName(field)} should not exist`, unknown: true })),
    ];
    const byField = new Map<string, Problem>();
    for (const problem of all) if (!byField.has(problem.field)) byField.set(problem.field, problem);
    const unknown = [...byField.values()].filter((problem) => problem.unknown).length;
    let named = 0;
    const details = [...byField.values()]
      .filter((problem) => !problem.unknown || ++named <= MAX_UNKNOWN_FIELDS_NAMED)
      .map(({ field, message }) => ({ field, message }));
    super(
      ErrorCode.VALIDATION_ERROR,
      unknown > MAX_UNKNOWN_FIELDS_NAMED
        ? `Validation failed: ${unknown} unknown fields, the first ${MAX_UNKNOWN_FIELDS_NAMED} named`
        : 'Validation failed',
      details,
    );
  }

  static of(errors: ValidationError[]): ValidationFailure {
    return new ValidationFailure(flatten(errors));
  }

  /** The same failure with more unknown fields. */
  withDropped(dropped: readonly string[]): ValidationFailure {
    return new ValidationFailure(this.problems, dropped);
  }
}

/** One detail per field: the first constraint that failed for it. */
export function validationDetails(errors: ValidationError[]): ErrorDetail[] {
  return ValidationFailure.of(errors).details ?? [];
}

function lastName(field: string): string {
  return field.slice(field.lastIndexOf('.') + 1);
}

/** An object class-transformer built by copying keys: a class instance or a plain object (a Dictionary has no prototype). */
function isCopy(value: unknown): value is object {
  return isJsonObject(value) && Object.getPrototypeOf(value) !== null && !(value instanceof Date);
}

/**
 * The keys of `raw` that class-transformer left out of `built`, as field paths. It leaves out `constructor`,
 * `__proto__` and every name the copy inherits a function by (`toString`, `valueOf`, `hasOwnProperty` …) without a
 * word, before class-validator's whitelist could name them; here they are unknown fields like any other
 * (api-rules.md § Basics: every name is a field). Walks the two side by side, in order.
 */
export function droppedFields(raw: unknown, built: unknown, root = ''): string[] {
  const dropped: string[] = [];
  const queue: Array<[unknown, unknown, string]> = [[raw, built, root]];
  for (let next = 0; next < queue.length; next++) {
    const [source, copy, path] = queue[next];
    if (Array.isArray(source) && Array.isArray(copy)) {
      source.forEach((item, index) => queue.push([item, copy[index], `${path}[${index}]`]));
    } else if (isJsonObject(source) && isCopy(copy)) {
      for (const key of Object.keys(source)) {
        const field = path ? `${path}.${key}` : key;
        if (Object.hasOwn(copy, key)) queue.push([source[key], (copy as Record<string, unknown>)[key], field]);
        else dropped.push(field);
      }
    }
  }
  return dropped;
}

/** Deeper than any request of this API; deeper input would only exhaust the stack of the recursive validators. */
export const MAX_INPUT_DEPTH = 32;

/** A high surrogate not followed by a low one, or a low one not preceded by a high one (ES2024's isWellFormed, negated). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export interface InputProblem {
  field: string;
  message: string;
}

/**
 * Input no field of this API can hold, found before class-transformer and class-validator see it: a
 * NUL character (PostgreSQL text and jsonb refuse it), a lone UTF-16 surrogate (not text; validator.js
 * throws on it) in a string or object key, or nesting deeper than MAX_INPUT_DEPTH. Iterative, so no
 * nesting depth can overflow the stack here.
 */
export function findInputProblem(value: unknown, root = ''): InputProblem | undefined {
  const stack: Array<[unknown, string, number]> = [[value, root, 0]];
  const badText = (text: string): boolean => text.includes('\u0000') || LONE_SURROGATE.test(text);
  while (stack.length > 0) {
    const [current, path, depth] = stack.pop()!;
    const field = path || 'body';
    if (typeof current === 'string') {
      if (badText(current)) return { field, message: `${field} must be valid text without NUL characters` };
      continue;
    }
    if (typeof current !== 'object' || current === null) continue;
    if (depth >= MAX_INPUT_DEPTH) return { field, message: `${field} is nested too deeply` };
    if (Array.isArray(current)) {
      current.forEach((item, index) => stack.push([item, `${path}[${index}]`, depth + 1]));
      continue;
    }
    for (const [key, item] of Object.entries(current)) {
      const child = path ? `${path}.${key}` : key;
      if (badText(key)) return { field, message: `${field} has a key that is not valid text` };
      stack.push([item, child, depth + 1]);
    }
  }
  return undefined;
}

/** More members than this in one object or array is no request of this API (its longest list holds 100). */
export const MAX_MEMBERS = 1000;

interface Container {
  object: boolean;
  members: number;
  path: string;
  /** Objects: the next string is a key. Arrays: the next value is a new item. */
  expecting: boolean;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** The index of the closing quote of the JSON string whose opening quote is at `start` (the text's end if none). */
function stringEnd(text: string, start: number): number {
  let end = text.indexOf('"', start + 1);
  while (end !== -1) {
    let slashes = 0;
    while (text.charCodeAt(end - 1 - slashes) === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return end;
    end = text.indexOf('"', end + 1);
  }
  return text.length;
}

/** A key as JSON.parse reads it (escapes undone), for the path of a refused container. */
function keyName(raw: string): string {
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return raw;
  }
}

/**
 * A JSON text too large in shape to be parsed: more than MAX_MEMBERS keys in one object or items in one array, or
 * nesting deeper than MAX_INPUT_DEPTH (api-rules.md § Basics). Read from the text, before JSON.parse: parsing one
 * object of 60,000 keys alone takes about 100 ms, and copying and validating it seconds. One pass, stopping at the
 * first problem; strings are skipped with indexOf. The text's syntax is JSON.parse's to judge afterwards: on text
 * that is not JSON this may find a problem or none, and either way the answer is a 400.
 */
export function findJsonShapeProblem(text: string): InputProblem | undefined {
  const stack: Container[] = [];
  let key = '';
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    const top = stack[stack.length - 1];
    if (code === QUOTE) {
      const end = stringEnd(text, index);
      const start = index + 1;
      index = end;
      if (top?.object && top.expecting) {
        key = text.slice(start, end);
        top.expecting = false;
        if (++top.members > MAX_MEMBERS)
          return { field: top.path || 'body', message: `${top.path || 'body'} has more than ${MAX_MEMBERS} fields` };
        continue;
      }
    } else if (code === 0x2c /* , */) {
      if (top) top.expecting = true;
      continue;
    } else if (code === 0x7d /* } */ || code === 0x5d /* ] */) {
      stack.pop();
      continue;
    } else if (code === 0x3a /* : */ || code <= 0x20) {
      continue;
    }
    // The start or the rest of a value: a new item when an array expects one.
    if (top && !top.object && top.expecting) {
      top.expecting = false;
      if (++top.members > MAX_MEMBERS)
        return { field: top.path || 'body', message: `${top.path || 'body'} has more than ${MAX_MEMBERS} items` };
    }
    if (code === 0x7b /* { */ || code === 0x5b /* [ */) {
      const path = !top ? '' : top.object ? (top.path ? `${top.path}.${keyName(key)}` : keyName(key)) : `${top.path}[${top.members - 1}]`;
      if (stack.length >= MAX_INPUT_DEPTH) {
        return { field: path || 'body', message: `${path || 'body'} is nested more than ${MAX_INPUT_DEPTH} levels deep` };
      }
      stack.push({ object: code === 0x7b, members: 0, path, expecting: true });
    }
  }
  return undefined;
}

/** Names class-transformer must not meet as keys: it takes an own `constructor` for the class to build (and throws). */
const TRANSFORMER_HAZARDS = new Set(['constructor', '__proto__', 'prototype']);

/**
 * What class-transformer is given: a copy of the input without TRANSFORMER_HAZARDS keys (what Nest's pipe would delete
 * from the input itself), each copied object linked to the object as sent (AS_SENT). Nothing is lost by it: the
 * pipe names every key the copy lacks as an unknown field (droppedFields), and Dictionary properties are copied from
 * the objects as sent. Depth is bounded (findInputProblem ran first).
 */
function workingCopy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(workingCopy);
  if (!isJsonObject(value) || value instanceof Date || ArrayBuffer.isView(value)) return value;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) if (!TRANSFORMER_HAZARDS.has(key)) copy[key] = workingCopy(value[key]);
  Object.defineProperty(copy, AS_SENT, { value });
  return copy;
}

/** The global pipe: input no field can hold (see findInputProblem) is a 400 before class-validator runs. */
class AppValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    // `null`, `5` or `[]` is no change and no resource: a JSON body, when there is one, is an object.
    if (metadata.type === 'body' && value !== undefined && (typeof value !== 'object' || value === null || Array.isArray(value))) {
      throw AppError.validation('body', 'The request body must be a JSON object');
    }
    const problem = findInputProblem(value, metadata.data ?? '');
    if (problem) throw AppError.validation(problem.field, problem.message);
    if (!metadata.metatype || !this.toValidate(metadata)) return super.transform(value, metadata);
    // Every name is a field (api-rules.md § Basics): what class-transformer leaves out is named, never dropped.
    const root = metadata.data ?? '';
    let built: unknown;
    try {
      built = await super.transform(workingCopy(value), metadata);
    } catch (error) {
      if (error instanceof ValidationFailure) {
        const dropped = droppedFields(value, plainToInstance(metadata.metatype, workingCopy(value)), root);
        if (dropped.length > 0) throw error.withDropped(dropped);
      }
      throw error;
    }
    const dropped = droppedFields(value, built, root);
    if (dropped.length > 0) throw new ValidationFailure([], dropped);
    return built;
  }
}

export function createValidationPipe(): ValidationPipe {
  return new AppValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    stopAtFirstError: false,
    // The value, for flatten to tell null apart; it never reaches the answer (only field and message do).
    validationError: { target: false, value: true },
    exceptionFactory: (errors: ValidationError[]) => ValidationFailure.of(errors),
  });
}
