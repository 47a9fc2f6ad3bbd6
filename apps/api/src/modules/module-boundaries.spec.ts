import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const MODULES = dirname(fileURLToPath(import.meta.url));
const APPS = resolve(MODULES, '..', '..', '..');

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [path] : [];
  });
}

/** The module a file of apps/api/src/modules belongs to, or undefined outside them. */
function moduleOf(path: string): string | undefined {
  const inside = relative(MODULES, path);
  return inside.startsWith('..') ? undefined : inside.split(sep)[0];
}

/** Relative imports of another module's entities or repositories in one file: what "modules own their tables" forbids. */
function crossingsIn(file: string, text: string): string[] {
  const own = moduleOf(file);
  const found: string[] = [];
  for (const match of text.matchAll(/from '(\.{1,2}\/[^']+)'/g)) {
    const target = resolve(dirname(file), match[1]);
    const owner = moduleOf(target);
    if (!owner || owner === own) continue;
    const inside = relative(join(MODULES, owner), target);
    if (inside.split(sep).includes('entities') || /\.repository\.js$/.test(inside))
      found.push(`${relative(APPS, file)} imports ${owner}/${inside}`);
  }
  return found;
}

describe('module boundaries', () => {
  it('no module (nor the worker app) imports another module’s entities or repositories', () => {
    const files = sourceFiles(APPS);
    expect(files.length).toBeGreaterThan(100);
    expect(files.flatMap((file) => crossingsIn(file, readFileSync(file, 'utf8')))).toEqual([]);
  });

  it.each([
    ["import { Member } from '../team/entities/member.entity.js';", 1],
    ["import { TeamRepository } from '../team/team.repository.js';", 1],
    ["import { Booking } from './entities/booking.entity.js';", 0],
    ["import { TeamService } from '../team/team.service.js';", 0],
    ["import { AppError } from '@app/common';", 0],
  ])('%s from modules/bookings counts %s crossing(s)', (line, count) => {
    expect(crossingsIn(join(MODULES, 'bookings', 'bookings.service.ts'), line)).toHaveLength(count);
  });
});
