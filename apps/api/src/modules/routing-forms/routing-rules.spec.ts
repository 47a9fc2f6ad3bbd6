import fc from 'fast-check';
import type { QuestionType } from '../event-types/index.js';
import {
  type AnswerValue,
  conditionHolds,
  OPS_BY_TYPE,
  ROUTING_OPS,
  type RoutingCondition,
  type RoutingField,
  type RoutingOp,
  routeFor,
  ruleProblems,
  type RouteWhen,
  type RoutingRule,
} from './routing-rules.js';

const FIELDS: RoutingField[] = [
  { id: 'name', type: 'text' },
  { id: 'about', type: 'textarea' },
  { id: 'email', type: 'email' },
  { id: 'phone', type: 'phone' },
  { id: 'size', type: 'number' },
  { id: 'region', type: 'select', options: ['emea', 'amer', 'apac'] },
  { id: 'products', type: 'multiselect', options: ['crm', 'erp', 'hr'] },
  { id: 'consent', type: 'checkbox' },
  { id: 'start', type: 'date' },
];
const typeOf = (id: string): QuestionType => FIELDS.find((field) => field.id === id)!.type;

type Row = [field: string, op: RoutingOp, value: RoutingCondition['value'], answer: AnswerValue | undefined, holds: boolean];

// Every op each field type takes, with an answer that meets it and one that does not, and an unanswered field.
const TABLE: Row[] = [
  ['name', 'equals', 'Ada', ' ada ', true],
  ['name', 'equals', 'Ada', 'Grace', false],
  ['name', 'not_equals', 'Ada', 'Grace', true],
  ['name', 'not_equals', 'Ada', 'ADA', false],
  ['name', 'in', ['Ada', 'Grace'], 'grace', true],
  ['name', 'in', ['Ada', 'Grace'], 'Linus', false],
  ['name', 'contains', 'lov', 'Ada Lovelace', true],
  ['name', 'contains', 'hop', 'Ada Lovelace', false],
  ['about', 'equals', 'Pricing', 'pricing', true],
  ['about', 'not_equals', 'Pricing', 'pricing', false],
  ['about', 'in', ['a', 'b'], 'b', true],
  ['about', 'contains', 'invoice', 'A question about my INVOICE', true],
  ['about', 'contains', 'invoice', 'A question about my plan', false],
  ['email', 'equals', 'ada@example.com', 'Ada@Example.com', true],
  ['email', 'not_equals', 'ada@example.com', 'bob@example.com', true],
  ['email', 'in', ['ada@example.com'], 'bob@example.com', false],
  ['email', 'contains', '@bigcorp.com', 'ceo@bigcorp.com', true],
  ['email', 'contains', '@bigcorp.com', 'ceo@gmail.com', false],
  ['phone', 'equals', '+44 20 1234', '+44 20 1234', true],
  ['phone', 'not_equals', '+44 20 1234', '+44 20 1234', false],
  ['phone', 'in', ['+1 555 0100', '+44 20 1234'], '+44 20 1234', true],
  ['phone', 'contains', '+44', '+44 20 1234', true],
  ['phone', 'contains', '+1', '+44 20 1234', false],
  ['size', 'equals', 200, 200, true],
  ['size', 'equals', 200, 201, false],
  ['size', 'not_equals', 200, 201, true],
  ['size', 'in', [10, 20], 20, true],
  ['size', 'in', [10, 20], 30, false],
  ['size', 'gte', 200, 200, true],
  ['size', 'gte', 200, 199.5, false],
  ['size', 'lte', 200, 200, true],
  ['size', 'lte', 200, 201, false],
  ['region', 'equals', 'emea', 'emea', true],
  ['region', 'equals', 'emea', 'apac', false],
  ['region', 'not_equals', 'emea', 'apac', true],
  ['region', 'in', ['emea', 'amer'], 'amer', true],
  ['region', 'in', ['emea', 'amer'], 'apac', false],
  ['products', 'contains', 'crm', ['erp', 'crm'], true],
  ['products', 'contains', 'crm', ['erp'], false],
  ['products', 'in', ['crm', 'hr'], ['erp', 'hr'], true],
  ['products', 'in', ['crm', 'hr'], ['erp'], false],
  ['consent', 'equals', true, true, true],
  ['consent', 'equals', true, false, false],
  ['consent', 'not_equals', true, false, true],
  ['consent', 'not_equals', false, false, false],
  ['start', 'equals', '2030-01-02', '2030-01-02', true],
  ['start', 'not_equals', '2030-01-02', '2030-01-02', false],
  ['start', 'in', ['2030-01-02', '2030-01-03'], '2030-01-03', true],
  ['start', 'gte', '2030-01-02', '2030-01-10', true],
  ['start', 'gte', '2030-01-02', '2029-12-31', false],
  ['start', 'lte', '2030-01-02', '2030-01-02', true],
  ['start', 'lte', '2030-01-02', '2030-01-03', false],
  // Not answered: no condition holds, not even not_equals.
  ['name', 'not_equals', 'Ada', undefined, false],
  ['size', 'lte', 10, undefined, false],
  ['products', 'in', ['crm'], undefined, false],
];

describe('routing rules: every op on every field type', () => {
  it.each(TABLE)('%s %s %j, answer %j → %s', (field, op, value, answer, holds) => {
    expect(conditionHolds(typeOf(field), { field, op, value }, answer)).toBe(holds);
  });

  it('the table covers every op each type takes', () => {
    for (const field of FIELDS) {
      for (const op of OPS_BY_TYPE[field.type]) {
        expect(TABLE.some(([id, rowOp, , answer]) => id === field.id && rowOp === op && answer !== undefined)).toBe(true);
      }
    }
  });
});

describe('routing rules: which ops and values fit at save', () => {
  const at = (when: RouteWhen): string[] => ruleProblems(FIELDS, [{ when: {} }, { when }]).map((problem) => problem.field);

  it.each(
    FIELDS.flatMap((field) => ROUTING_OPS.filter((op) => !OPS_BY_TYPE[field.type].includes(op)).map((op) => [field.id, op] as const)),
  )('%s refuses %s', (field, op) => {
    expect(at({ all: [{ field, op, value: 'x' }] })).toEqual(['routes[1].when.all[0].op']);
  });

  it.each<[string, RouteWhen, string[]]>([
    ['an unknown field', { any: [{ field: 'nope', op: 'equals', value: 'x' }] }, ['routes[1].when.any[0].field']],
    [
      'a value outside the options',
      {
        all: [
          { field: 'size', op: 'gte', value: 1 },
          { field: 'region', op: 'equals', value: 'mars' },
        ],
      },
      ['routes[1].when.all[1].value'],
    ],
    [
      'an in item outside the options',
      { all: [{ field: 'region', op: 'in', value: ['emea', 'mars'] }] },
      ['routes[1].when.all[0].value[1]'],
    ],
    ['a multiselect option', { all: [{ field: 'products', op: 'contains', value: 'ops' }] }, ['routes[1].when.all[0].value']],
    ['in without an array', { all: [{ field: 'name', op: 'in', value: 'Ada' }] }, ['routes[1].when.all[0].value']],
    ['an empty in', { all: [{ field: 'name', op: 'in', value: [] }] }, ['routes[1].when.all[0].value']],
    ['a text for a number', { all: [{ field: 'size', op: 'gte', value: '200' }] }, ['routes[1].when.all[0].value']],
    ['a bad date', { all: [{ field: 'start', op: 'lte', value: '2030-02-30' }] }, ['routes[1].when.all[0].value']],
    ['a string for a checkbox', { all: [{ field: 'consent', op: 'equals', value: 'yes' }] }, ['routes[1].when.all[0].value']],
    ['an empty text', { all: [{ field: 'name', op: 'contains', value: '' }] }, ['routes[1].when.all[0].value']],
    ['both all and any', { all: [], any: [] }, ['routes[1].when']],
    [
      'fitting conditions',
      {
        all: [
          { field: 'size', op: 'gte', value: 200 },
          { field: 'region', op: 'in', value: ['emea'] },
        ],
      },
      [],
    ],
  ])('%s', (_name, when, fields) => {
    expect(at(when)).toEqual(fields);
  });
});

describe('routing rules: choosing the route', () => {
  const routes: RoutingRule<string>[] = [
    {
      when: {
        all: [
          { field: 'size', op: 'gte', value: 200 },
          { field: 'region', op: 'equals', value: 'emea' },
        ],
      },
      to: 'enterprise-emea',
    },
    {
      when: {
        any: [
          { field: 'size', op: 'gte', value: 200 },
          { field: 'products', op: 'contains', value: 'erp' },
        ],
      },
      to: 'enterprise',
    },
    { when: { all: [{ field: 'consent', op: 'equals', value: true }] }, to: 'demo' },
  ];
  const answers = (entries: Record<string, AnswerValue>): Map<string, AnswerValue> => new Map(Object.entries(entries));

  it.each<[string, Record<string, AnswerValue>, string, number | null]>([
    ['all holds: the first route', { size: 500, region: 'emea' }, 'enterprise-emea', 0],
    ['the first that holds wins, even when later ones hold too', { size: 500, region: 'apac', consent: true }, 'enterprise', 1],
    ['any: one condition is enough', { size: 5, products: ['erp'] }, 'enterprise', 1],
    ['a later route', { size: 5, consent: true }, 'demo', 2],
    ['nothing holds: the fallback', { size: 5 }, 'fallback', null],
    ['no answers: the fallback', {}, 'fallback', null],
  ])('%s', (_name, given, route, matchedRoute) => {
    expect(routeFor(FIELDS, routes, 'fallback', answers(given))).toEqual({ route, matchedRoute });
  });

  it('{} always holds; an empty all holds, an empty any does not', () => {
    expect(
      routeFor(
        FIELDS,
        [
          { when: { any: [] }, to: 'a' },
          { when: {}, to: 'b' },
        ],
        'f',
        new Map(),
      ),
    ).toEqual({ route: 'b', matchedRoute: 1 });
    expect(routeFor(FIELDS, [{ when: { all: [] }, to: 'a' }], 'f', new Map())).toEqual({ route: 'a', matchedRoute: 0 });
  });
});

describe('routing rules: properties', () => {
  const condition = fc.record({
    field: fc.constantFrom('size', 'region'),
    op: fc.constantFrom<RoutingOp>('equals', 'not_equals', 'in'),
    value: fc.oneof(fc.integer({ min: 0, max: 3 }), fc.constantFrom('emea', 'apac'), fc.constant(['emea', 'amer'])),
  }) as fc.Arbitrary<RoutingCondition>;
  const when: fc.Arbitrary<RouteWhen> = fc.oneof(
    fc.constant({}),
    fc.array(condition, { maxLength: 4 }).map((all) => ({ all })),
    fc.array(condition, { maxLength: 4 }).map((any) => ({ any })),
  );
  const given = fc.record({ size: fc.integer({ min: 0, max: 3 }), region: fc.constantFrom('emea', 'amer', 'apac') }, { requiredKeys: [] });

  /** The naive reference: walk the routes, test each condition by hand. */
  function reference(routes: RouteWhen[], answers: Record<string, AnswerValue>): number | null {
    const holds = (c: RoutingCondition): boolean => {
      if (!Object.hasOwn(answers, c.field)) return false;
      const answer = answers[c.field];
      if (c.op === 'in') return Array.isArray(c.value) && c.value.includes(answer as string);
      if (Array.isArray(c.value)) return false;
      return c.op === 'equals' ? answer === c.value : answer !== c.value;
    };
    for (let i = 0; i < routes.length; i++) {
      const w = routes[i];
      if (w.all ? w.all.every(holds) : w.any ? w.any.some(holds) : true) return i;
    }
    return null;
  }

  it('evaluation equals the naive reference; {} always matches', () => {
    fc.assert(
      fc.property(fc.array(when, { maxLength: 6 }), given, (whens, answers) => {
        const routes = whens.map((w, i) => ({ when: w, to: i }));
        const result = routeFor(FIELDS, routes, -1, new Map(Object.entries(answers)));
        const expected = reference(whens, answers);
        expect(result).toEqual({ route: expected ?? -1, matchedRoute: expected });
        const always = whens.findIndex((w) => w.all === undefined && w.any === undefined);
        if (always !== -1) expect(result.matchedRoute).not.toBeNull();
        if (always !== -1) expect(result.matchedRoute!).toBeLessThanOrEqual(always);
      }),
    );
  });

  it('any is some of its conditions, all is every one', () => {
    fc.assert(
      fc.property(fc.array(condition, { maxLength: 5 }), given, (conditions, answers) => {
        const map = new Map(Object.entries(answers));
        const each = conditions.map((c) => routeFor(FIELDS, [{ when: { all: [c] }, to: 1 }], 0, map).route === 1);
        expect(routeFor(FIELDS, [{ when: { any: conditions }, to: 1 }], 0, map).route === 1).toBe(each.some(Boolean));
        expect(routeFor(FIELDS, [{ when: { all: conditions }, to: 1 }], 0, map).route === 1).toBe(each.every(Boolean));
      }),
    );
  });
});
