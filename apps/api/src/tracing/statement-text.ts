/**
 * Statement text without its literal values, for traces (contract § 19: a span per statement carries "its text without
 * literal values"). Statements bind their values (`$n`), batches too (TransactionHost.batched), but a few spell
 * constants in their text, and a lock's ids travel written in (TransactionHost.lock); they reach the pg instrumentation
 * as text. This file
 * imports nothing, so the tracing setup loads it before pg.
 */

const IDENTIFIER_CHAR = /[A-Za-z0-9_$]/;
const DOLLAR_TAG = /\$([A-Za-z_][A-Za-z0-9_]*)?\$/y;
/** A numeric constant (PostgreSQL 16 also takes `_` between digits); a sign before it is an operator and stays. */
const NUMBER = /(?:\d[\d_]*(?:\.[\d_]*)?|\.\d[\d_]*)(?:[eE][+-]?\d+)?/y;

/** Where a quoted string or identifier opened before `from` ends (`''` and `""` inside are the quote itself). */
function closingQuote(text: string, from: number, quote: string, backslashEscapes: boolean): number {
  for (let i = from; i < text.length; i++) {
    if (backslashEscapes && text[i] === '\\') i++;
    else if (text[i] === quote) {
      if (text[i + 1] !== quote) return i + 1;
      i++;
    }
  }
  return text.length;
}

type Token = 'string' | 'identifier' | 'comment';

/** The string, quoted identifier, dollar-quoted body or comment that starts at `at`, and where it ends; null when none starts there. */
function quotedAt(text: string, at: number): { kind: Token; end: number } | null {
  const c = text[at];
  if (c === "'") return { kind: 'string', end: closingQuote(text, at + 1, "'", false) };
  if ((c === 'E' || c === 'e') && text[at + 1] === "'" && !IDENTIFIER_CHAR.test(text[at - 1] ?? ''))
    return { kind: 'string', end: closingQuote(text, at + 2, "'", true) };
  if (c === '"') return { kind: 'identifier', end: closingQuote(text, at + 1, '"', false) };
  if (c === '-' && text[at + 1] === '-') {
    const end = text.indexOf('\n', at + 2);
    return { kind: 'comment', end: end < 0 ? text.length : end + 1 };
  }
  if (c === '/' && text[at + 1] === '*') {
    const end = text.indexOf('*/', at + 2);
    return { kind: 'comment', end: end < 0 ? text.length : end + 2 };
  }
  if (c === '$' && !IDENTIFIER_CHAR.test(text[at - 1] ?? '')) {
    DOLLAR_TAG.lastIndex = at;
    const tag = DOLLAR_TAG.exec(text);
    if (tag) {
      const end = text.indexOf(tag[0], at + tag[0].length);
      return { kind: 'string', end: end < 0 ? text.length : end + tag[0].length };
    }
  }
  return null;
}

/**
 * `text` with every string constant (plain, `E''`, dollar-quoted) and numeric constant replaced by `?` and every
 * comment by a space. Placeholders (`$1`), identifiers (quoted or not, digits in them included), keywords such as
 * `NULL` and `true`, casts and operators stay, so the statement still reads as what it does:
 * `INSERT INTO t (a, b) VALUES ('x', 42)` becomes `INSERT INTO t (a, b) VALUES (?, ?)`.
 */
export function statementWithoutLiterals(text: string): string {
  let out = '';
  let copied = 0;
  for (let i = 0; i < text.length;) {
    const quoted = quotedAt(text, i);
    if (quoted) {
      if (quoted.kind !== 'identifier') {
        out += text.slice(copied, i) + (quoted.kind === 'string' ? '?' : ' ');
        copied = quoted.end;
      }
      i = quoted.end;
      continue;
    }
    const c = text[i];
    if (((c >= '0' && c <= '9') || (c === '.' && /\d/.test(text[i + 1] ?? ''))) && !IDENTIFIER_CHAR.test(text[i - 1] ?? '')) {
      NUMBER.lastIndex = i;
      const number = NUMBER.exec(text);
      if (number) {
        out += text.slice(copied, i) + '?';
        i += number[0].length;
        copied = i;
        continue;
      }
    }
    i++;
  }
  return out + text.slice(copied);
}
