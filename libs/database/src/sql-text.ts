/** Reading a statement's text as PostgreSQL does: where its strings, quoted identifiers, dollar-quoted bodies and comments are. */

const IDENTIFIER_CHAR = /[A-Za-z0-9_]/;
const DOLLAR_TAG = /\$([A-Za-z_][A-Za-z0-9_]*)?\$/y;

/** Whether the character before `at` belongs to an identifier (`a$1` is a name, not a parameter). */
export function followsIdentifier(text: string, at: number): boolean {
  return IDENTIFIER_CHAR.test(text[at - 1] ?? '');
}

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

/** Where the string, quoted identifier, dollar-quoted body or comment that starts at `at` ends; -1 when none starts there. */
function endOfQuoted(text: string, at: number): number {
  const c = text[at];
  if (c === "'") return closingQuote(text, at + 1, "'", false);
  if ((c === 'E' || c === 'e') && text[at + 1] === "'" && !followsIdentifier(text, at)) return closingQuote(text, at + 2, "'", true);
  if (c === '"') return closingQuote(text, at + 1, '"', false);
  if (c === '-' && text[at + 1] === '-') {
    const end = text.indexOf('\n', at + 2);
    return end < 0 ? text.length : end + 1;
  }
  if (c === '/' && text[at + 1] === '*') {
    const end = text.indexOf('*/', at + 2);
    return end < 0 ? text.length : end + 2;
  }
  if (c === '$') {
    DOLLAR_TAG.lastIndex = at;
    const tag = DOLLAR_TAG.exec(text);
    if (tag) {
      const end = text.indexOf(tag[0], at + tag[0].length);
      return end < 0 ? text.length : end + tag[0].length;
    }
  }
  return -1;
}

/** The [start, end) ranges of `text` that are code: everything outside strings, quoted identifiers, dollar-quoted bodies and comments. */
export function* codeSpans(text: string): Generator<[number, number]> {
  let start = 0;
  for (let i = 0; i < text.length;) {
    const end = endOfQuoted(text, i);
    if (end < 0) {
      i++;
      continue;
    }
    if (i > start) yield [start, i];
    i = end;
    start = end;
  }
  if (start < text.length) yield [start, text.length];
}
