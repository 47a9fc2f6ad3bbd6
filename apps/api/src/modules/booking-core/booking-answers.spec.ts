import fc from 'fast-check';
import type { BookingQuestion } from '../event-types/index.js';
import { answerText, checkAnswers, MAX_UNKNOWN_ANSWERS_NAMED } from './booking-answers.js';

const QUESTIONS: BookingQuestion[] = [
  { id: 'company', label: 'Company', type: 'text', required: true, maxLength: 10 },
  { id: 'agenda', label: 'Agenda', type: 'textarea', required: false, maxLength: 5000 },
  { id: 'work_email', label: 'Work email', type: 'email', required: false },
  { id: 'phone', label: 'Phone', type: 'phone', required: false },
  { id: 'seats', label: 'Seats', type: 'number', required: false },
  { id: 'plan', label: 'Plan', type: 'select', required: false, options: ['basic', 'pro'] },
  { id: 'topics', label: 'Topics', type: 'multiselect', required: false, options: ['a', 'b', 'c'] },
  { id: 'consent', label: 'I agree', type: 'checkbox', required: true },
  { id: 'newsletter', label: 'Newsletter', type: 'checkbox', required: false },
  { id: 'start', label: 'Start date', type: 'date', required: false },
];
const VALID = { company: 'Acme', consent: true };

describe('checkAnswers: every type', () => {
  it.each<[string, Record<string, unknown>, string | null]>([
    ['only the required ones', {}, null],
    ['text at its maxLength', { company: 'x'.repeat(10) }, null],
    ['text over its maxLength', { company: 'x'.repeat(11) }, 'answers.company'],
    ['text not a string', { company: 42 }, 'answers.company'],
    ['textarea', { agenda: 'line 1\nline 2' }, null],
    ['email', { work_email: 'ann@example.com' }, null],
    ['email without @', { work_email: 'ann.example.com' }, 'answers.work_email'],
    ['phone', { phone: '+49 (30) 123-456' }, null],
    ['phone with letters', { phone: 'call me' }, 'answers.phone'],
    ['phone too short', { phone: '123' }, 'answers.phone'],
    ['number', { seats: 2.5 }, null],
    ['number as a string', { seats: '3' }, 'answers.seats'],
    ['select', { plan: 'pro' }, null],
    ['select, not an option', { plan: 'enterprise' }, 'answers.plan'],
    ['multiselect', { topics: ['a', 'c'] }, null],
    ['multiselect, a repeated option', { topics: ['a', 'a'] }, 'answers.topics'],
    ['multiselect, not an option', { topics: ['d'] }, 'answers.topics'],
    ['multiselect, not an array', { topics: 'a' }, 'answers.topics'],
    ['optional checkbox false', { newsletter: false }, null],
    ['checkbox not a boolean', { newsletter: 'yes' }, 'answers.newsletter'],
    ['required checkbox false', { consent: false }, 'answers.consent'],
    ['date', { start: '2028-02-29' }, null],
    ['date that does not exist', { start: '2027-02-29' }, 'answers.start'],
    ['date with a time', { start: '2027-03-01T10:00' }, 'answers.start'],
    ['unknown id', { other: 'x' }, 'answers.other'],
  ])('%s', (_name, extra, field) => {
    const { problems } = checkAnswers(QUESTIONS, { ...VALID, ...extra });
    expect(problems.map((p) => p.field)).toEqual(field === null ? [] : [field]);
  });

  it('names every missing required answer', () => {
    expect(checkAnswers(QUESTIONS, {}).problems.map((p) => p.field)).toEqual(['answers.company', 'answers.consent']);
    expect(checkAnswers(QUESTIONS, { company: '', consent: true }).problems.map((p) => p.field)).toEqual(['answers.company']);
  });

  it('keeps the answers in the questions’ order with the labels as asked, leaving blank optional ones out', () => {
    const { answers } = checkAnswers(QUESTIONS, { consent: true, plan: 'basic', company: 'Acme', agenda: '' });
    expect(answers).toEqual([
      { id: 'company', label: 'Company', type: 'text', value: 'Acme' },
      { id: 'plan', label: 'Plan', type: 'select', value: 'basic' },
      { id: 'consent', label: 'I agree', type: 'checkbox', value: true },
    ]);
  });

  it('renders values for people', () => {
    expect(answerText({ type: 'checkbox', value: true })).toBe('Yes');
    expect(answerText({ type: 'multiselect', value: ['a', 'b'] })).toBe('a, b');
    expect(answerText({ type: 'number', value: 3 })).toBe('3');
  });
});

/** Any valid answer to each question, or none for an optional one. */
function validAnswers(questions: readonly BookingQuestion[]): fc.Arbitrary<Record<string, unknown>> {
  const entries = questions.map((question) => {
    const value: fc.Arbitrary<unknown> = (() => {
      switch (question.type) {
        case 'text':
        case 'textarea':
          return fc.string({ minLength: 1, maxLength: question.maxLength });
        case 'email':
          return fc.emailAddress().filter((email) => email.length <= 254);
        case 'phone':
          return fc.stringMatching(/^\+?[0-9]{5,20}$/);
        case 'number':
          return fc.double({ noNaN: true, noDefaultInfinity: true });
        case 'select':
          return fc.constantFrom(...question.options!);
        case 'multiselect':
          return fc.uniqueArray(fc.constantFrom(...question.options!), { minLength: 1 });
        case 'checkbox':
          return question.required ? fc.constant(true) : fc.boolean();
        case 'date':
          return fc
            .date({ min: new Date('2000-01-01'), max: new Date('2099-12-31'), noInvalidDate: true })
            .map((d) => d.toISOString().slice(0, 10));
      }
    })();
    return [question.id, question.required ? value : fc.option(value, { nil: undefined })] as const;
  });
  return fc
    .record(Object.fromEntries(entries) as Record<string, fc.Arbitrary<unknown>>)
    .map((record) => Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined)));
}

describe('checkAnswers: properties', () => {
  it('accepts any valid answer set and keeps every value unchanged', () => {
    fc.assert(
      fc.property(validAnswers(QUESTIONS), (given) => {
        const { answers, problems } = checkAnswers(QUESTIONS, given);
        expect(problems).toEqual([]);
        expect(Object.fromEntries(answers.map((answer) => [answer.id, answer.value]))).toEqual(
          Object.fromEntries(Object.entries(given).filter(([, value]) => !(typeof value === 'string' && value === ''))),
        );
      }),
      { numRuns: 300 },
    );
  });
});

describe('checkAnswers: every id is a key, Object.prototype’s names included', () => {
  const NAMES = ['constructor', 'prototype', 'valueof', 'tostring', 'hasownproperty', 'isprototypeof', 'proto'];

  it('answers a required question whose id names an Object.prototype member, from parsed JSON or a bare object', () => {
    fc.assert(
      fc.property(fc.constantFrom(...NAMES), fc.string({ minLength: 1, maxLength: 20 }), fc.boolean(), (id, value, bare) => {
        const questions: BookingQuestion[] = [{ id, label: 'Q', type: 'text', required: true, maxLength: 20 }];
        const parsed = JSON.parse(JSON.stringify({ [id]: value })) as Record<string, unknown>;
        const given = bare ? Object.assign(Object.create(null) as Record<string, unknown>, parsed) : parsed;
        expect(checkAnswers(questions, given)).toEqual({ answers: [{ id, label: 'Q', type: 'text', value }], problems: [] });
        expect(checkAnswers(questions, {}).problems).toEqual([{ field: `answers.${id}`, message: 'Q is required' }]);
      }),
    );
  });

  it('never takes an inherited member for an answer, and names an own `__proto__` key as unknown', () => {
    const questions: BookingQuestion[] = [{ id: 'constructor', label: 'C', type: 'text', required: false, maxLength: 10 }];
    expect(checkAnswers(questions, {})).toEqual({ answers: [], problems: [] });
    const sent = JSON.parse('{"__proto__": "x", "toString": "y"}') as Record<string, unknown>;
    expect(checkAnswers(questions, sent).problems.map((problem) => problem.field)).toEqual(['answers.__proto__', 'answers.toString']);
  });

  it(`names at most ${MAX_UNKNOWN_ANSWERS_NAMED} unknown ids`, () => {
    const many = Object.fromEntries(Array.from({ length: 500 }, (_, index) => [`q${index}`, 'x']));
    const { problems } = checkAnswers(QUESTIONS, { ...VALID, ...many });
    expect(problems).toHaveLength(MAX_UNKNOWN_ANSWERS_NAMED);
    expect(problems[0]).toEqual({ field: 'answers.q0', message: "there is no question 'q0'" });
  });
});
