import fc from 'fast-check';
import { droppedFields, findJsonShapeProblem, MAX_INPUT_DEPTH, MAX_MEMBERS, ValidationFailure } from './validation.js';

/** The rule findJsonShapeProblem reads from the text, said of the parsed value. */
function tooLarge(value: unknown, depth = 0): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (depth >= MAX_INPUT_DEPTH) return true;
  const members = Object.values(value);
  return members.length > MAX_MEMBERS || members.some((member) => tooLarge(member, depth + 1));
}

const nest = (levels: number, inner: unknown = {}): unknown => (levels === 0 ? inner : { a: nest(levels - 1, inner) });

describe('findJsonShapeProblem: members and depth, read from the text', () => {
  it.each<[string, unknown, string | undefined]>([
    ['1,000 keys', Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`k${i}`, i])), undefined],
    ['1,001 keys', Object.fromEntries(Array.from({ length: 1001 }, (_, i) => [`k${i}`, i])), 'body has more than 1000 fields'],
    ['1,001 items deeper down', { list: [{ x: Array.from({ length: 1001 }, () => 'a,b') }] }, 'list[0].x has more than 1000 items'],
    [
      '1,001 answers',
      { answers: Object.fromEntries(Array.from({ length: 1001 }, (_, i) => [`q"${i}`, '{'])) },
      'answers has more than 1000 fields',
    ],
    ['32 levels', nest(31), undefined],
    ['33 levels', nest(32), `${Array(32).fill('a').join('.')} is nested more than 32 levels deep`],
    ['an escaped key', { 'a"\\': { b: nest(40) } }, expect.stringMatching(/^a"\\\.b\.a/) as unknown as string],
  ])('%s', (_name, value, message) => {
    expect(findJsonShapeProblem(JSON.stringify(value))?.message).toEqual(message);
  });

  it('agrees with the rule on any JSON, however it is spaced', () => {
    const wide = fc.array(fc.oneof(fc.integer(), fc.string(), fc.constant({ a: [1] })), { minLength: 995, maxLength: 1005 });
    const value = fc.oneof(
      fc.jsonValue({ maxDepth: 6 }),
      wide,
      wide.map((items) => Object.fromEntries(items.map((item, index) => [`k${index}`, item]))),
      fc.integer({ min: 28, max: 36 }).map((levels) => nest(levels, [1, '"]'])),
    );
    fc.assert(
      fc.property(value, fc.constantFrom(undefined, 2), (json, space) => {
        expect(findJsonShapeProblem(JSON.stringify(json, null, space)) !== undefined).toBe(tooLarge(json));
      }),
      { numRuns: 200 },
    );
  });

  it('60,000 keys are refused in a few milliseconds, without parsing', () => {
    const text = JSON.stringify(Object.fromEntries(Array.from({ length: 60_000 }, (_, i) => [`x${i}`, ''])));
    // Cheaper than parsing it, whatever else the machine is doing: the fastest of three runs of each.
    const fastest = (work: () => unknown): number =>
      Math.min(
        ...[1, 2, 3].map(() => {
          const started = performance.now();
          work();
          return performance.now() - started;
        }),
      );
    expect(findJsonShapeProblem(text)?.field).toBe('body');
    expect(fastest(() => findJsonShapeProblem(text))).toBeLessThan(fastest(() => JSON.parse(text)) / 2);
  });
});

describe('droppedFields: what class-transformer left out of the copy', () => {
  class Attendee {
    email?: string;
  }
  class Body {
    attendee?: Attendee;
    list?: Attendee[];
  }
  const build = (attendee: object, list: object[]): Body =>
    Object.assign(new Body(), { attendee: Object.assign(new Attendee(), attendee), list });

  it('names keys missing from class instances and plain copies, at their path, in order', () => {
    const sent = JSON.parse('{"attendee":{"email":"a","constructor":1,"__proto__":2},"list":[{"email":"b","toString":3}]}');
    const built = build({ email: 'a' }, [Object.assign(new Attendee(), { email: 'b' })]);
    expect(droppedFields(sent, built)).toEqual(['attendee.constructor', 'attendee.__proto__', 'list[0].toString']);
  });

  it('leaves objects without a prototype alone: they are dictionaries, copied whole', () => {
    const answers = Object.assign(Object.create(null) as object, { constructor: 'kept' });
    expect(droppedFields({ answers: { constructor: 'kept', valueOf: 1 } }, Object.assign(new Body(), { answers }))).toEqual([]);
  });
});

describe('ValidationFailure: unknown fields', () => {
  it('names at most 20 unknown fields and says how many there were; other problems are all named', () => {
    const dropped = Array.from({ length: 25 }, (_, i) => `f${i}`);
    const failure = new ValidationFailure([], dropped);
    expect(failure.message).toBe('Validation failed: 25 unknown fields, the first 20 named');
    expect(failure.details).toHaveLength(20);
    expect(failure.details?.[0]).toEqual({ field: 'f0', message: 'property f0 should not exist' });
    const mixed = ValidationFailure.of([
      { property: 'title', constraints: { isString: 'title must be a string' }, children: [] },
      ...dropped.map((property) => ({
        property,
        constraints: { whitelistValidation: `property ${property} should not exist` },
        children: [],
      })),
    ]).withDropped(['attendee.constructor']);
    expect(mixed.details).toHaveLength(21);
    expect(mixed.details?.[0]).toEqual({ field: 'title', message: 'title must be a string' });
    expect(mixed.message).toBe('Validation failed: 26 unknown fields, the first 20 named');
  });

  it('says an item that is not an object by its path', () => {
    const failure = ValidationFailure.of([
      {
        property: 'slots',
        children: [{ property: '0', constraints: { nestedValidation: 'nested property 0 must be either object or array' } }],
      },
    ]);
    expect(failure.details).toEqual([{ field: 'slots[0]', message: 'slots[0] must be an object' }]);
  });
});
