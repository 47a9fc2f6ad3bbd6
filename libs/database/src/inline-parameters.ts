import { createRequire } from 'node:module';
import { codeSpans, followsIdentifier } from './sql-text.js';

/** pg's own conversion of a parameter to its text form, and its literal quoting (pg/lib/utils). */
const pgUtils = createRequire(import.meta.url)('pg/lib/utils') as {
  prepareValue(value: unknown): string | Buffer | null;
  escapeLiteral(text: string): string;
};

/** A statement and the values of its `$n` parameters. */
export interface Statement {
  text: string;
  values: readonly unknown[];
}

const PLACEHOLDER = /\$(\d+)/g;

/**
 * A statement with its parameters written in as literals, the way pg would send them: each value goes
 * through pg's `prepareValue` (dates, arrays, JSON) and `escapeLiteral`; a parameter's cast stays. `$n` inside a
 * string, a quoted identifier, a dollar-quoted body or a comment is text, not a parameter. A placeholder without a
 * value, or a value no placeholder takes, throws: the same statement with bound parameters would fail as well.
 */
export function inlineParameters({ text, values }: Statement): string {
  const used = new Set<number>();
  let out = '';
  let copied = 0;
  for (const [start, end] of codeSpans(text)) {
    for (const placeholder of text.slice(start, end).matchAll(PLACEHOLDER)) {
      const at = start + placeholder.index;
      if (followsIdentifier(text, at)) continue;
      const index = Number(placeholder[1]);
      if (index < 1 || index > values.length) throw new Error(`Statement parameter $${index} has no value (${values.length} given)`);
      used.add(index);
      const value = pgUtils.prepareValue(values[index - 1]);
      const literal =
        value === null ? 'NULL' : Buffer.isBuffer(value) ? `'\\x${value.toString('hex')}'::bytea` : pgUtils.escapeLiteral(value);
      out += text.slice(copied, at) + literal;
      copied = at + placeholder[0].length;
    }
  }
  if (used.size !== values.length) throw new Error(`Statement takes ${used.size} of its ${values.length} parameters`);
  return out + text.slice(copied);
}
