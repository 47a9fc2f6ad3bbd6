import { ArgumentMetadata, ValidationError, ValidationPipe } from '@nestjs/common';
import { AppError, ErrorDetail } from '../errors/app-error.js';
import { ErrorCode } from '../errors/error-code.js';

/** class-validator's type checks: when one fails, the value's bounds or format mean nothing, so only it is reported. */
const TYPE_CONSTRAINTS = ['isInt', 'isNumber', 'isString', 'isBoolean', 'isArray', 'isObject', 'nestedValidation'];

function constraintMessages(constraints: Record<string, string> = {}): string[] {
  const typeCheck = TYPE_CONSTRAINTS.find((name) => name in constraints);
  return typeCheck ? [constraints[typeCheck]] : Object.values(constraints);
}

function flatten(errors: ValidationError[], parent = ''): ErrorDetail[] {
  return errors.flatMap((error) => {
    const field = parent ? (/^\d+$/.test(error.property) ? `${parent}[${error.property}]` : `${parent}.${error.property}`) : error.property;
    const own = constraintMessages(error.constraints).map((message) => ({ field, message }));
    return [...own, ...flatten(error.children ?? [], field)];
  });
}

/** One detail per field: the first constraint that failed for it. */
export function validationDetails(errors: ValidationError[]): ErrorDetail[] {
  const byField = new Map<string, ErrorDetail>();
  for (const detail of flatten(errors)) if (!byField.has(detail.field)) byField.set(detail.field, detail);
  return [...byField.values()];
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

/** The global pipe: input no field can hold (see findInputProblem) is a 400 before class-validator runs. */
class AppValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    // `null`, `5` or `[]` is no change and no resource: a JSON body, when there is one, is an object.
    if (metadata.type === 'body' && value !== undefined && (typeof value !== 'object' || value === null || Array.isArray(value))) {
      throw AppError.validation('body', 'The request body must be a JSON object');
    }
    const problem = findInputProblem(value, metadata.data ?? '');
    if (problem) throw AppError.validation(problem.field, problem.message);
    return super.transform(value, metadata);
  }
}

export function createValidationPipe(): ValidationPipe {
  return new AppValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    stopAtFirstError: false,
    validationError: { target: false, value: false },
    exceptionFactory: (errors: ValidationError[]) =>
      new AppError(ErrorCode.VALIDATION_ERROR, 'Validation failed', validationDetails(errors)),
  });
}
