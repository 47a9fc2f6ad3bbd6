import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '..', '..');
/** The partners' pages: every sample on them runs (test/docs-samples.e2e-spec.ts, test/docs-sdk-samples). */
export const INTEGRATING = join(ROOT, 'docs', 'integrating');

/**
 * One fenced block of a page and the `<!-- sample: … -->` comment on the line before it, if any:
 * `status=201` or `status=200,403` (one per curl, in order; without it every answer must be 2xx),
 * `save=NAME=path` (a value of the last answer's JSON, dotted, `slots.0.start`, for the next samples),
 * `before=consent` (the runner plays the browser's part of an OAuth authorization first).
 */
export interface DocBlock {
  page: string;
  line: number;
  info: string;
  text: string;
  statuses?: number[];
  saves: [name: string, path: string][];
  before?: string;
}

export function pages(): string[] {
  return readdirSync(INTEGRATING)
    .filter((name) => name.endsWith('.md'))
    .sort();
}

export function blocks(page: string): DocBlock[] {
  const lines = readFileSync(join(INTEGRATING, page), 'utf8').split('\n');
  const found: DocBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(.*)$/.exec(lines[i]);
    if (!open) continue;
    const end = lines.indexOf('```', i + 1);
    if (end < 0) throw new Error(`${page}:${i + 1}: a fence that never closes`);
    const directive = i > 0 ? /^<!-- sample: (.*) -->$/.exec(lines[i - 1])?.[1] : undefined;
    const block: DocBlock = { page, line: i + 1, info: open[1].trim(), text: lines.slice(i + 1, end).join('\n'), saves: [] };
    for (const part of directive?.split(/\s+/) ?? []) {
      const [key, ...rest] = part.split('=');
      const value = rest.join('=');
      if (key === 'status') block.statuses = value.split(',').map(Number);
      else if (key === 'save') block.saves.push([rest[0], rest.slice(1).join('=')]);
      else if (key === 'before') block.before = value;
      else throw new Error(`${page}:${i}: unknown sample directive ${part}`);
    }
    found.push(block);
    i = end;
  }
  return found;
}

/** A block is a curl sample when a line of it runs curl. */
export function isCurl(block: DocBlock): boolean {
  return block.text.split('\n').some((line) => /^\s*curl\s/.test(line));
}

/** `a.b.0.c` of a parsed JSON answer, as text. */
export function pick(body: unknown, path: string): string {
  let value: unknown = body;
  for (const key of path.split('.')) value = (value as Record<string, unknown> | undefined)?.[key];
  if (typeof value !== 'string' && typeof value !== 'number') throw new Error(`no ${path} in ${JSON.stringify(body)?.slice(0, 500)}`);
  return String(value);
}
