import { type MessageFormatElement, parse, TYPE } from '@formatjs/icu-messageformat-parser';

/** A message's placeholders as the ICU parser sees them: `name:kind`, with a select's options (`role:select=admin|other`). */
export function placeholdersOf(message: string): string[] {
  const found = new Set<string>();
  const walk = (elements: readonly MessageFormatElement[]): void => {
    for (const element of elements) {
      switch (element.type) {
        case TYPE.argument:
          found.add(`${element.value}:argument`);
          break;
        case TYPE.number:
        case TYPE.date:
        case TYPE.time:
          found.add(`${element.value}:${TYPE[element.type]}`);
          break;
        case TYPE.select:
          found.add(`${element.value}:select=${Object.keys(element.options).sort().join('|')}`);
          for (const option of Object.values(element.options)) walk(option.value);
          break;
        case TYPE.plural:
          // Plural categories differ by language (ja has only `other`): the argument counts, not the categories.
          found.add(`${element.value}:plural`);
          for (const option of Object.values(element.options)) walk(option.value);
          break;
        case TYPE.tag:
          found.add(`<${element.value}>:tag`);
          walk(element.children);
          break;
        default:
          break;
      }
    }
  };
  walk(parse(message, { requiresOtherClause: true }));
  return [...found].sort();
}

/**
 * What is wrong with the catalogs against the reference one (contract § 23): a key missing or extra, a message the ICU
 * parser refuses, a placeholder another catalog does not have, a plural without `other`. Empty when all is well.
 */
export function catalogProblems(
  reference: Readonly<Record<string, string>>,
  catalogs: Readonly<Record<string, Readonly<Record<string, string>>>>,
): string[] {
  const problems: string[] = [];
  const expected = new Map<string, string[]>();
  for (const [key, message] of Object.entries(reference)) expected.set(key, placeholdersOf(message));
  for (const [locale, messages] of Object.entries(catalogs)) {
    for (const key of expected.keys()) if (!(key in messages)) problems.push(`${locale}: ${key} is missing`);
    for (const [key, message] of Object.entries(messages)) {
      const wanted = expected.get(key);
      if (!wanted) {
        problems.push(`${locale}: ${key} is not in the reference catalog`);
        continue;
      }
      let found: string[];
      try {
        found = placeholdersOf(message);
      } catch (error) {
        problems.push(`${locale}: ${key} does not parse (${(error as Error).message})`);
        continue;
      }
      if (found.join(' ') !== wanted.join(' ')) problems.push(`${locale}: ${key} has {${found.join(', ')}}, not {${wanted.join(', ')}}`);
    }
  }
  return problems;
}
