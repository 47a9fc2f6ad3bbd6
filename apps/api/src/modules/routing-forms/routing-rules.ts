import type { BookingQuestion, QuestionType } from '../event-types/index.js';

/**
 * The rules of a routing form (contract § 22, api-rules.md § Routing forms): plain functions of their arguments, no
 * Nest, no TypeORM, no I/O. `routeFor` picks the route; `ruleProblems` says why a form's rules do not fit its fields.
 */
export const ROUTING_OPS = ['equals', 'not_equals', 'in', 'contains', 'gte', 'lte'] as const;
export type RoutingOp = (typeof ROUTING_OPS)[number];

export type ConditionScalar = string | number | boolean;
export type ConditionValue = ConditionScalar | ConditionScalar[];

export interface RoutingCondition {
  field: string;
  op: RoutingOp;
  value: ConditionValue;
}

/** `{ all }`, `{ any }`, or neither (always). */
export interface RouteWhen {
  all?: RoutingCondition[];
  any?: RoutingCondition[];
}

export interface RoutingRule<T> {
  when: RouteWhen;
  to: T;
}

export type AnswerValue = string | number | boolean | string[];
export type RoutingField = Pick<BookingQuestion, 'id' | 'type' | 'options'>;

/** Which ops each field type takes; the same table is in api-rules.md. */
export const OPS_BY_TYPE: Readonly<Record<QuestionType, readonly RoutingOp[]>> = {
  text: ['equals', 'not_equals', 'in', 'contains'],
  textarea: ['equals', 'not_equals', 'in', 'contains'],
  email: ['equals', 'not_equals', 'in', 'contains'],
  phone: ['equals', 'not_equals', 'in', 'contains'],
  number: ['equals', 'not_equals', 'in', 'gte', 'lte'],
  select: ['equals', 'not_equals', 'in'],
  multiselect: ['in', 'contains'],
  checkbox: ['equals', 'not_equals'],
  date: ['equals', 'not_equals', 'in', 'gte', 'lte'],
};

/** At most this many values in an `in` list, and this long a text value. */
export const MAX_IN_VALUES = 50;
export const MAX_TEXT_VALUE_LENGTH = 500;

const TEXT_LIKE: readonly QuestionType[] = ['text', 'textarea', 'email', 'phone'];
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

function isRealDate(value: string): boolean {
  const match = DATE.exec(value);
  if (!match) return false;
  const [year, month, day] = match.slice(1).map(Number);
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

const fold = (text: string): string => text.trim().toLowerCase();

/** Equality of one answer value with one condition value of the same field type. */
function same(type: QuestionType, answer: string | number | boolean, value: ConditionScalar): boolean {
  if (TEXT_LIKE.includes(type)) return typeof answer === 'string' && typeof value === 'string' && fold(answer) === fold(value);
  return answer === value;
}

/** Whether `answer` (undefined: not answered) meets the condition; an unanswered field meets no condition at all. */
export function conditionHolds(type: QuestionType, condition: RoutingCondition, answer: AnswerValue | undefined): boolean {
  if (answer === undefined) return false;
  const { op, value } = condition;
  if (Array.isArray(answer)) {
    // multiselect: `contains` one option, `in` shares at least one option with the list.
    if (op === 'contains') return answer.includes(value as string);
    if (op === 'in') return Array.isArray(value) && answer.some((chosen) => value.includes(chosen));
    return false;
  }
  switch (op) {
    case 'equals':
      return !Array.isArray(value) && same(type, answer, value);
    case 'not_equals':
      return !Array.isArray(value) && !same(type, answer, value);
    case 'in':
      return Array.isArray(value) && value.some((item) => same(type, answer, item));
    case 'contains':
      return typeof answer === 'string' && typeof value === 'string' && fold(answer).includes(fold(value));
    case 'gte':
      return typeof answer === typeof value && (answer as number | string) >= (value as number | string);
    case 'lte':
      return typeof answer === typeof value && (answer as number | string) <= (value as number | string);
  }
}

/** `{}` always holds; `all` every condition, `any` at least one. */
export function whenHolds(
  when: RouteWhen,
  typeOf: (fieldId: string) => QuestionType | undefined,
  answers: ReadonlyMap<string, AnswerValue>,
): boolean {
  const holds = (condition: RoutingCondition): boolean => {
    const type = typeOf(condition.field);
    return type !== undefined && conditionHolds(type, condition, answers.get(condition.field));
  };
  if (when.all !== undefined) return when.all.every(holds);
  if (when.any !== undefined) return when.any.some(holds);
  return true;
}

/** The first route whose `when` holds, else the fallback (matchedRoute null). */
export function routeFor<T>(
  fields: readonly RoutingField[],
  routes: readonly RoutingRule<T>[],
  fallback: T,
  answers: ReadonlyMap<string, AnswerValue>,
): { route: T; matchedRoute: number | null } {
  const types = new Map(fields.map((field) => [field.id, field.type]));
  const typeOf = (id: string): QuestionType | undefined => types.get(id);
  const index = routes.findIndex((rule) => whenHolds(rule.when, typeOf, answers));
  return index === -1 ? { route: fallback, matchedRoute: null } : { route: routes[index].to, matchedRoute: index };
}

export interface RuleProblem {
  field: string;
  message: string;
}

/** Why one scalar does not fit `field` as a condition value, or null. */
function scalarProblem(field: RoutingField, value: unknown): string | null {
  switch (field.type) {
    case 'text':
    case 'textarea':
    case 'email':
    case 'phone':
      return typeof value === 'string' && value.length >= 1 && value.length <= MAX_TEXT_VALUE_LENGTH
        ? null
        : `must be a string of 1 to ${MAX_TEXT_VALUE_LENGTH} characters`;
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? null : 'must be a finite number';
    case 'select':
    case 'multiselect':
      return typeof value === 'string' && field.options!.includes(value)
        ? null
        : `must be an option of field '${field.id}': ${field.options!.join(', ')}`;
    case 'checkbox':
      return typeof value === 'boolean' ? null : 'must be true or false';
    case 'date':
      return typeof value === 'string' && isRealDate(value) ? null : 'must be a date (YYYY-MM-DD)';
  }
}

/** Problems of one condition at `path` (e.g. `routes[0].when.all[1]`), each naming its member. */
function conditionProblems(fields: ReadonlyMap<string, RoutingField>, condition: RoutingCondition, path: string): RuleProblem[] {
  const field = fields.get(condition.field);
  if (field === undefined) return [{ field: `${path}.field`, message: `there is no field '${condition.field}'` }];
  if (!OPS_BY_TYPE[field.type].includes(condition.op)) {
    return [
      {
        field: `${path}.op`,
        message: `${condition.op} does not fit a ${field.type} field (it takes ${OPS_BY_TYPE[field.type].join(', ')})`,
      },
    ];
  }
  const value: unknown = condition.value;
  if (condition.op === 'in') {
    if (!Array.isArray(value) || value.length < 1 || value.length > MAX_IN_VALUES) {
      return [{ field: `${path}.value`, message: `in takes an array of 1 to ${MAX_IN_VALUES} values` }];
    }
    const problems: RuleProblem[] = [];
    value.forEach((item, index) => {
      const problem = scalarProblem(field, item);
      if (problem !== null) problems.push({ field: `${path}.value[${index}]`, message: problem });
    });
    return problems;
  }
  const problem = scalarProblem(field, value);
  return problem === null ? [] : [{ field: `${path}.value`, message: problem }];
}

/** Why the rules do not fit the fields: unknown fields, ops that do not fit a type, values outside a select's options. */
export function ruleProblems(fields: readonly RoutingField[], rules: readonly { when: RouteWhen }[]): RuleProblem[] {
  const byId = new Map(fields.map((field) => [field.id, field]));
  const problems: RuleProblem[] = [];
  rules.forEach((rule, index) => {
    const kinds = (['all', 'any'] as const).filter((kind) => rule.when[kind] !== undefined);
    if (kinds.length > 1) {
      problems.push({ field: `routes[${index}].when`, message: 'when takes all, any or neither, not both' });
      return;
    }
    for (const kind of kinds) {
      rule.when[kind]!.forEach((condition, at) => {
        problems.push(...conditionProblems(byId, condition, `routes[${index}].when.${kind}[${at}]`));
      });
    }
  });
  return problems;
}
