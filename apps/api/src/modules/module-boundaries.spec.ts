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

/** Imports of another module's inner files (anything but its index.js) in one file of a module. */
function innerImportsIn(file: string, text: string): string[] {
  const own = moduleOf(file);
  if (!own) return [];
  const found: string[] = [];
  for (const match of text.matchAll(/from '(\.{1,2}\/[^']+)'/g)) {
    const target = resolve(dirname(file), match[1]);
    const owner = moduleOf(target);
    if (!owner || owner === own || owner.endsWith('.ts')) continue;
    const inside = relative(join(MODULES, owner), target);
    if (inside !== 'index.js') found.push(`${relative(MODULES, file)} imports ${owner}/${inside}`);
  }
  return found;
}

/** Who owns each table (docs/contributing/architecture.md). */
const TABLE_OWNERS: Record<string, string> = {
  users: 'auth',
  sessions: 'auth',
  login_failures: 'auth',
  api_keys: 'api-keys',
  organizations: 'team',
  members: 'team',
  event_types: 'event-types',
  event_type_hosts: 'event-types',
  weekly_schedules: 'schedules',
  availability_versions: 'availability',
  date_overrides: 'schedules',
  bookings: 'booking-core',
  booking_reminders: 'booking-reminders',
  booking_hosts: 'booking-core',
  holds: 'booking-core',
  booking_count_deltas: 'booking-core',
  booking_series: 'booking-series',
  visitor_bookings: 'bookings',
  idempotency_keys: 'idempotency',
  webhooks: 'webhooks',
  webhook_deliveries: 'webhooks',
  webhook_attempts: 'webhooks',
  domain_events: 'outbox',
  mail_outbox: 'mail',
  calendar_connections: 'calendars',
  calendar_writes: 'calendar-writes',
  booking_feeds: 'calendar-feeds',
  calendar_busy_times: 'calendars',
  out_of_office_entries: 'out-of-office',
  routing_forms: 'routing-forms',
  routing_responses: 'routing-forms',
  visitor_responses: 'routing-forms',
  oauth_apps: 'oauth',
  oauth_grants: 'oauth',
  oauth_authorizations: 'oauth',
  oauth_tokens: 'oauth',
  sso_connections: 'enterprise-identity',
  sso_domains: 'enterprise-identity',
  sso_logins: 'enterprise-identity',
  scim_tokens: 'enterprise-identity',
  scim_users: 'enterprise-identity',
};

/**
 * The named read models, the only files that may read other modules' tables; they write none of them. The reminders'
 * two repositories write their own table from statements that read the booking it is due for (docs/contributing/architecture.md).
 */
const READ_MODELS = [
  'availability/slot.read-model.ts',
  'auth/me.read-model.ts',
  'global-lookups/global-lookups.read-model.ts',
  'booking-occupancy/booking-counts.read-model.ts',
  'booking-reminders/booking-reminders.repository.ts',
  'booking-reminders/reminder-queue.repository.ts',
];

/** Which module folders each module folder imports from (relative imports only). */
function moduleGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const file of sourceFiles(MODULES)) {
    const own = moduleOf(file);
    if (!own || own.endsWith('.ts')) continue;
    for (const match of readFileSync(file, 'utf8').matchAll(/from '(\.{1,2}\/[^']+)'/g)) {
      const owner = moduleOf(resolve(dirname(file), match[1]));
      if (owner && owner !== own && !owner.endsWith('.ts')) graph.set(own, (graph.get(own) ?? new Set()).add(owner));
    }
  }
  return graph;
}

/** Every cycle's path through the graph, as "a → b → a" (each found once, from its first module in order). */
function cyclesOf(graph: Map<string, Set<string>>): string[] {
  const cycles = new Set<string>();
  const walk = (start: string, at: string, path: string[]): void => {
    for (const next of graph.get(at) ?? []) {
      if (next === start) cycles.add([...path, start].join(' → '));
      else if (!path.includes(next) && next > start) walk(start, next, [...path, next]);
    }
  };
  for (const start of [...graph.keys()].sort()) walk(start, start, [start]);
  return [...cycles];
}

/** The tables one file's SQL writes (inserts into, updates, deletes from). */
function writtenTablesIn(text: string): string[] {
  const written = [
    ...text.matchAll(/\b(?:INSERT INTO|DELETE FROM|UPDATE)\s+"?([a-z_]+)"?(?:\s+[a-z_]+)?\s+(?:\(|VALUES|SELECT|SET|WHERE|USING)/g),
  ];
  return [...new Set(written.map((match) => match[1]))];
}

/** Tables of other modules that one file's SQL names. */
function foreignTablesIn(file: string, text: string): string[] {
  const own = moduleOf(file);
  const named = [...text.matchAll(/\b(?:FROM|JOIN|INTO|UPDATE|TABLE)\s+"?([a-z_]+)"?/g)].map((match) => match[1]);
  return [...new Set(named)].filter((table) => TABLE_OWNERS[table] !== undefined && TABLE_OWNERS[table] !== own);
}

describe('module boundaries', () => {
  it('no module (nor the worker app) imports another module’s entities or repositories', () => {
    const files = sourceFiles(APPS);
    expect(files.length).toBeGreaterThan(100);
    expect(files.flatMap((file) => crossingsIn(file, readFileSync(file, 'utf8')))).toEqual([]);
  });

  it('no module’s SQL names another module’s table, except in the named read models', () => {
    const found = sourceFiles(MODULES)
      .filter((file) => !READ_MODELS.includes(relative(MODULES, file).split(sep).join('/')))
      .flatMap((file) => foreignTablesIn(file, readFileSync(file, 'utf8')).map((table) => `${relative(MODULES, file)} names ${table}`));
    expect(found).toEqual([]);
  });

  it('the read models write no other module’s table', () => {
    const writes = READ_MODELS.flatMap((file) =>
      writtenTablesIn(readFileSync(join(MODULES, file), 'utf8'))
        .filter((table) => TABLE_OWNERS[table] !== file.split('/')[0])
        .map((table) => `${file} writes ${table}`),
    );
    expect(writes).toEqual([]);
  });

  it.each([
    ['INSERT INTO booking_reminders (organization_id) SELECT b.organization_id FROM bookings b', ['booking_reminders']],
    ['UPDATE booking_reminders r SET sent_at = $4 WHERE true', ['booking_reminders']],
    ['DELETE FROM booking_reminders r USING bookings b WHERE b.id = r.booking_id', ['booking_reminders']],
    ['UPDATE "users" SET first_name = $1', ['users']],
    ['SELECT b.id FROM bookings b JOIN booking_hosts bh ON bh.booking_id = b.id', []],
  ])('`%s` writes %j', (sql, tables) => {
    expect(writtenTablesIn(sql)).toEqual(tables);
  });

  it.each([
    ['SELECT id FROM members WHERE organization_id = $1', 1],
    ['SELECT b.id FROM bookings b JOIN booking_hosts bh ON bh.booking_id = b.id', 0],
    ['UPDATE "users" SET first_name = $1', 1],
  ])('`%s` in modules/booking-core names %s foreign table(s)', (sql, count) => {
    expect(foreignTablesIn(join(MODULES, 'booking-core', 'bookings.repository.ts'), sql)).toHaveLength(count);
  });

  it('a module uses another only through its index.ts', () => {
    expect(sourceFiles(MODULES).flatMap((file) => innerImportsIn(file, readFileSync(file, 'utf8')))).toEqual([]);
  });

  it.each([
    ["import { TeamService } from '../team/team.service.js';", 1],
    ["import { TeamService } from '../team/index.js';", 0],
    ["import { BookingView } from './dto/booking.dto.js';", 0],
  ])('%s in modules/bookings counts %s inner import(s)', (line, count) => {
    expect(innerImportsIn(join(MODULES, 'bookings', 'booking-create.service.ts'), line)).toHaveLength(count);
  });

  it('module folders depend on each other without cycles', () => {
    expect(cyclesOf(moduleGraph())).toEqual([]);
  });

  it('finds a cycle when there is one', () => {
    const graph = new Map([
      ['a', new Set(['b'])],
      ['b', new Set(['c'])],
      ['c', new Set(['a'])],
      ['d', new Set(['a'])],
    ]);
    expect(cyclesOf(graph)).toEqual(['a → b → c → a']);
  });

  it('no module steps out of the caller’s transaction but through TransactionHost.outside (no DataSource injected)', () => {
    const stepping = sourceFiles(MODULES).filter((file) => /\bDataSource\b/.test(readFileSync(file, 'utf8')));
    expect(stepping.map((file) => relative(APPS, file))).toEqual([]);
  });

  it.each([
    ["import { Member } from '../team/entities/member.entity.js';", 1],
    ["import { TeamRepository } from '../team/team.repository.js';", 1],
    ["import { Booking } from './entities/booking.entity.js';", 0],
    ["import { TeamService } from '../team/team.service.js';", 0],
    ["import { AppError } from '@app/common';", 0],
  ])('%s from modules/bookings counts %s crossing(s)', (line, count) => {
    expect(crossingsIn(join(MODULES, 'bookings', 'booking-create.service.ts'), line)).toHaveLength(count);
  });
});
