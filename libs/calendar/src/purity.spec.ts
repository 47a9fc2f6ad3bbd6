import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const ALLOWED = new Set(['ical.js', 'temporal-polyfill', 'windows-iana']);

describe('libs/calendar is pure', () => {
  it('imports only its parser, Temporal and the Windows zone table: no Nest, no TypeORM, no I/O', () => {
    const imports = readdirSync(HERE)
      .filter((name) => name.endsWith('.ts') && !name.endsWith('.spec.ts'))
      .flatMap((name) => [...readFileSync(join(HERE, name), 'utf8').matchAll(/from '([^']+)'/g)].map((m) => m[1]));
    expect(imports.length).toBeGreaterThan(3);
    expect(imports.filter((source) => !source.startsWith('./') && !ALLOWED.has(source))).toEqual([]);
  });
});
