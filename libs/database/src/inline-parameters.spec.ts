import { inlineParameters } from './inline-parameters.js';

describe('inlineParameters', () => {
  it.each([
    ['a plain placeholder', 'SELECT $1', ['a'], "SELECT 'a'"],
    ['placeholders out of order, one used twice', 'SELECT $2, $1, $2', [1, 'x'], "SELECT 'x', '1', 'x'"],
    ['null', 'SELECT $1::text', [null], 'SELECT NULL::text'],
    ['$n inside a string literal', "SELECT '$1 costs $2', $1", ['a'], "SELECT '$1 costs $2', 'a'"],
    ['a doubled quote inside a string', "SELECT 'it''s $1', $1", ['a'], "SELECT 'it''s $1', 'a'"],
    ['an escape string with a backslashed quote', "SELECT E'\\' $1', $1", ['a'], "SELECT E'\\' $1', 'a'"],
    ['$n inside a quoted identifier', 'SELECT 1 AS "$1", $1', ['a'], `SELECT 1 AS "$1", 'a'`],
    ['$n inside a line comment', 'SELECT $1 -- not $2\n', ['a'], "SELECT 'a' -- not $2\n"],
    ['$n inside a block comment', 'SELECT /* $2 */ $1', ['a'], "SELECT /* $2 */ 'a'"],
    ['$n inside a dollar-quoted body', 'SELECT $fn$ $2 $fn$, $$ $3 $$, $1', ['a'], "SELECT $fn$ $2 $fn$, $$ $3 $$, 'a'"],
    ['a value with a quote and a backslash', 'SELECT $1', ["o'k\\"], "SELECT  E'o''k\\\\'"],
    ['$10 is the tenth, not the first and a zero', 'SELECT $10', [1, 2, 3, 4, 5, 6, 7, 8, 9, 'ten'], null],
  ])('%s', (_name, text, values, expected) => {
    if (expected === null) {
      expect(() => inlineParameters({ text, values })).toThrow('Statement takes 1 of its 10 parameters');
    } else {
      expect(inlineParameters({ text, values })).toBe(expected);
    }
  });

  it.each([
    ['a placeholder without a value', 'SELECT $1, $2', ['a'], 'Statement parameter $2 has no value (1 given)'],
    ['a value no placeholder takes', 'SELECT $1', ['a', 'b'], 'Statement takes 1 of its 2 parameters'],
    ['a placeholder only inside a string', "SELECT '$1'", ['a'], 'Statement takes 0 of its 1 parameters'],
    ['$0', 'SELECT $0', [], 'Statement parameter $0 has no value (0 given)'],
  ])('throws on %s', (_name, text, values, message) => {
    expect(() => inlineParameters({ text, values })).toThrow(message);
  });
});
